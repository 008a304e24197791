// text_report — the study summary as the original's tables: per phase, one row per arm with
// min, mean, p50, p95, p99 and max in ms with microsecond precision, the overhead against
// the arm's baseline with its confidence interval, then bytes and CPU, failed or invalid
// arms with their reasons, and outlier trials. Printed aligned for a terminal or as
// Markdown (summary.md); CSV is one row per arm and phase. Formatting only: every number
// comes from the summary (summary.h).
#pragma once

#include <ostream>

#include "report/summary.h"

namespace pqc::report {

enum class TextStyle { kTerminal, kMarkdown };

void WriteStudyText(std::ostream& out, const Summary& summary, TextStyle style);
void WriteStudyCsv(std::ostream& out, const Summary& summary);

}  // namespace pqc::report
