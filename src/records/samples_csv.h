// samples_csv — every connection of a run as one CSV row (warm-up included, marked by the
// `measured` column), so that any statistic not in the summary can be computed later from
// raw data, and runs can be merged exactly. The header is fixed: columns never depend on
// the records. RFC 4180 quoting, "\n" line ends.
//
// Columns: first every stored column of the connection (connection_columns.h, in its order:
// what the results database holds, so a new per-connection metric is here too), timestamps
// as `<name>_us`, in µs relative to LoadResult::run_start with 3 decimals (empty = did not
// happen); then what is derived from them: the phases of summary.h in µs (empty =
// undefined), the signature algorithm's name (empty when resumed), and the first request's
// timestamps, status and body bytes (req_*).
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "records/load_result.h"

namespace pqc {

// SamplesCsvHeader: the header line without its line end.
const std::string& SamplesCsvHeader();

// WriteSamplesCsv: header and one row per connection, in the order of result.connections.
void WriteSamplesCsv(std::ostream& out, const LoadResult& result);

}  // namespace pqc
