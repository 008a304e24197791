// html_report — the `html` format of `pqc-bench report`: one self-contained file that opens
// offline, years later, on any machine: run facts, a table per arm, comparisons with verdicts,
// outlier warnings and charts (Vega-Lite, with the libraries and the data inlined). Like every
// reporter it takes the summary JSON ("pqc-bench/summary/1"), which already carries every
// number: no statistics here.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "core/error.h"

namespace pqc {

// WriteHtmlReport: the page for `summary`. Fails (kConfig) only when the document is not a
// summary at all (wrong or missing "schema", no "run" object, "arms" not an array); missing
// or mistyped fields inside it show as "–" or as an omitted chart with its reason.
Status WriteHtmlReport(const nlohmann::json& summary, std::ostream& out);

}  // namespace pqc
