// comparison_charts — the Vega-Lite charts of `compare --format html`: per matched arm, the
// latency spectra of every run overlaid (the same chart as the report's, one line per run), and
// one chart of every difference from the baseline run as bars with their intervals as rules.
// Built from the comparison's numbers; no statistics here.
#pragma once

#include <vector>

#include "report/chart_specs.h"
#include "report/run_comparison.h"

namespace pqc::report {

// ArmSpectraChart: arm `index` of c.arms in every run that has it; omitted when the arm is in
// one run only. Its id is "chart-spectrum-<index>".
Chart ArmSpectraChart(const RunComparison& c, size_t index);

// DifferencesChart: one row per matched arm (and run, with more than two runs), a bar per
// statistic (p50, p95, p99, mean) at the difference's estimate and a rule over its interval;
// a selector picks the phase (handshake first). Id "chart-differences".
Chart DifferencesChart(const RunComparison& c);

// ComparisonCharts: the differences, then each arm's spectra, omitted ones included.
std::vector<Chart> ComparisonCharts(const RunComparison& c);

}  // namespace pqc::report
