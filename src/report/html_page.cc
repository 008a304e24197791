#include "report/html_page.h"

#include <fmt/format.h>

#include "report/chart_scripts.h"
#include "report/html_text.h"

namespace pqc::report {
namespace {

// 'unsafe-eval': Vega compiles its expressions with Function(); nothing may be fetched.
constexpr std::string_view kHead = R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
)";

constexpr std::string_view kStyle = R"(<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.banner { padding: 0.6em 1em; margin: 1em 0; border-radius: 4px; font-weight: 600; }
.complete { background: #e6f4ea; color: #1e4620; }
.incomplete { background: #fdecea; color: #8a1c1c; }
.status-ok { color: #1e4620; }
.status-failed, .status-invalid { color: #8a1c1c; font-weight: 600; }
.reason { white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 12px; color: #8a1c1c; }
.muted { color: #777; }
.detectable { font-weight: 600; }
.warning { color: #8a5a00; }
.chart { margin: 0.5em 0 1.5em; min-height: 40px; }
.omitted { color: #777; font-style: italic; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 1em; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; }
footer { margin-top: 3em; color: #777; font-size: 12px; }
</style>
</head>
)";

// Renders every container listed in the specs; records failures on the element and body so
// that they are visible on the page and to the test, and logs them as console errors.
constexpr std::string_view kRenderScript = R"(<script>
(function () {
  var specs = JSON.parse(document.getElementById('pqc-chart-specs').textContent);
  var ids = Object.keys(specs);
  var jobs = ids.map(function (id) {
    var el = document.getElementById(id);
    return vegaEmbed(el, specs[id], { renderer: 'svg', actions: false }).then(function (result) {
      el.setAttribute('data-rendered', 'true');
      return result;
    }, function (err) {
      el.setAttribute('data-error', String(err));
      el.textContent = 'This chart could not be drawn: ' + err;
      throw err;
    });
  });
  window.pqcChartsReady = Promise.all(jobs).then(function () {
    document.body.setAttribute('data-charts-rendered', String(ids.length));
    return ids.length;
  }, function (err) {
    console.error('pqc-bench report: ' + err);
    document.body.setAttribute('data-charts-error', String(err));
    throw err;
  });
})();
</script>
)";

}  // namespace

void WritePageHead(std::ostream& out, std::string_view title) {
  out << kHead << "<title>" << HtmlEscape(title) << "</title>\n" << kStyle << "<body>\n";
  out << "<h1>" << HtmlEscape(title) << "</h1>\n";
}

void WritePageEnd(std::ostream& out, const nlohmann::json& specs) {
  out << "<footer>Written by pqc-bench " << HtmlEscape(PQC_VERSION) << ". Charts drawn with";
  std::string_view separator = " ";
  for (const ChartScript& script : ChartScripts()) {
    out << separator << HtmlEscape(script.name) << ' ' << HtmlEscape(script.version) << " ("
        << HtmlEscape(script.license) << ')';
    separator = ", ";
  }
  out << ", embedded in this file.</footer>\n";
  for (const ChartScript& script : ChartScripts()) {
    out << "<script>" << script.text << "</script>\n";
  }
  out << "<script type=\"application/json\" id=\"pqc-chart-specs\">" << ScriptJson(specs)
      << "</script>\n"
      << kRenderScript << "</body>\n</html>\n";
}

std::string HtmlCell(std::string_view text, bool numeric) {
  return fmt::format("<td{}>{}</td>", numeric ? " class=\"num\"" : "", HtmlEscape(text));
}

void WriteHtmlTable(std::ostream& out, const Table& t, std::string_view id) {
  auto right = [&](size_t c) { return c < t.right.size() && t.right[c]; };
  out << "<table id=\"" << HtmlEscape(id) << "\">\n<tr>";
  for (size_t c = 0; c < t.headers.size(); ++c) {
    out << (right(c) ? "<th class=\"num\">" : "<th>") << HtmlEscape(t.headers[c]) << "</th>";
  }
  out << "</tr>\n";
  for (const auto& row : t.rows) {
    out << "<tr>";
    for (size_t c = 0; c < row.size(); ++c) out << HtmlCell(row[c], right(c));
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace pqc::report
