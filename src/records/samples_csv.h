// samples_csv — every connection of a run as one CSV row (warm-up included, marked by the
// `measured` column), so that any statistic not in the summary can be computed later from
// raw data, and runs can be merged exactly. The header is fixed: columns never depend on
// the records. RFC 4180 quoting, "\n" line ends.
//
// Columns: identity (id, thread, mode, measured, offered_session); timestamps in µs relative
// to LoadResult::run_start with 3 decimals (empty = did not happen); the phases of summary.h
// in µs (empty = undefined); handshake bytes; what was negotiated (group, sigalg name empty
// when resumed, cipher, resumed, hrr); error class and detail; the first request's
// timestamps, status and body bytes; request_count.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "records/load_result.h"

namespace pqc {

// SamplesCsvHeader: the header line without its line end.
std::string_view SamplesCsvHeader();

// WriteSamplesCsv: header and one row per connection, in the order of result.connections.
void WriteSamplesCsv(std::ostream& out, const LoadResult& result);

}  // namespace pqc
