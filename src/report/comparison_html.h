// comparison_html — `compare --format html`: one self-contained page (html_page.h) with the
// findings first, the runs' facts and what else differs between them, the gates, a chart of
// every difference with its interval, and per matched arm its spectra in every run overlaid
// and its tables of latency, CPU and bytes. Formatting only, like every reporter.
#pragma once

#include <ostream>

#include "report/run_comparison.h"

namespace pqc::report {

void WriteComparisonHtml(std::ostream& out, const RunComparison& c);

}  // namespace pqc::report
