// html_page — what every page pqc-bench writes shares: the head (a Content-Security-Policy
// that forbids any network access, so a page opens offline and fetches nothing), one style
// sheet, tables from the reports' Table grid, and the end of the page — the chart libraries
// compiled into the binary, the Vega-Lite specs inlined, and a script that renders every chart
// and publishes a promise (window.pqcChartsReady) that the browser tests wait on. `report`'s
// page (html_report.h) and `compare`'s (comparison_html.h) are written with it.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

#include "core/text_table.h"

namespace pqc::report {

// WritePageHead: doctype, head with `title`, style, and the opening <body> with an <h1>.
void WritePageHead(std::ostream& out, std::string_view title);

// WritePageEnd: the footer naming the embedded chart libraries, the libraries, `specs` (chart
// container id → Vega-Lite spec) and the render script; closes the page.
void WritePageEnd(std::ostream& out, const nlohmann::json& specs);

// HtmlCell: one escaped <td>, right-aligned for numbers.
std::string HtmlCell(std::string_view text, bool numeric = false);

// WriteHtmlTable: `t` as an escaped <table id="id"> (headers, then one <tr> per row).
void WriteHtmlTable(std::ostream& out, const Table& t, std::string_view id);

}  // namespace pqc::report
