// comparison_output — a RunComparison as the terminal tables, Markdown or JSON: the findings
// first (each detectable difference as a sentence with its interval), then the runs' facts,
// what differs between the runs besides what is compared, the arms one run lacks, the
// per-arm tables and the gates.
#pragma once

#include <ostream>

#include "core/error.h"
#include "report/report_files.h"
#include "report/run_comparison.h"

namespace pqc::report {

// WriteComparison: table, md or json (csv and html are refused with what is valid).
Status WriteComparison(std::ostream& out, const RunComparison& c, Format format);

}  // namespace pqc::report
