// html_report — the `html` format of `pqc-bench report`: one self-contained file that opens
// offline, years later, on any machine: run facts, a table per arm, comparisons with verdicts,
// outlier warnings and charts (Vega-Lite, with the libraries and the data inlined). Like every
// reporter it takes the summary (summary.h), which already carries every number: no statistics
// here.
#pragma once

#include <ostream>

#include "core/error.h"
#include "report/summary.h"

namespace pqc {

// WriteHtmlReport: the page for `summary` (a document on disk is read with
// summary_json.h's ReadSummary first). Numbers the summary does not have show as "–", and a
// chart without data is replaced by its reason. Fails only when `out` does.
Status WriteHtmlReport(const report::Summary& summary, std::ostream& out);

}  // namespace pqc
