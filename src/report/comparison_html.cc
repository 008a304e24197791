#include "report/comparison_html.h"

#include <fmt/format.h>

#include "report/comparison_charts.h"
#include "report/comparison_tables.h"
#include "report/html_page.h"
#include "report/html_text.h"

namespace pqc::report {
namespace {

void List(std::ostream& out, std::string_view id, const std::vector<std::string>& items) {
  out << "<ul id=\"" << HtmlEscape(id) << "\">\n";
  for (const std::string& i : items) out << "<li>" << HtmlEscape(i) << "</li>\n";
  out << "</ul>\n";
}

void WriteChart(std::ostream& out, const Chart& chart) {
  if (chart.drawn()) {
    out << "<p class=\"muted\">" << HtmlEscape(chart.caption) << "</p>\n<div class=\"chart\" id=\""
        << HtmlEscape(chart.id) << "\" data-series=\"" << chart.series << "\"></div>\n";
  } else {
    out << "<p class=\"omitted\" id=\"" << HtmlEscape(chart.id)
        << "-omitted\">Not drawn: " << HtmlEscape(chart.omitted) << ".</p>\n";
  }
}

void WriteGates(std::ostream& out, const RunComparison& c) {
  if (c.gates.empty()) return;
  out << "<h2>Gates</h2>\n";
  if (c.any_gate_failed()) {
    out << "<div class=\"banner incomplete\" id=\"gate-status\">A gate FAILED: a difference's "
           "whole interval lies beyond its threshold.</div>\n";
  } else if (c.any_gate_cannot_judge()) {
    // Not "passed": without an interval a gate can neither fail nor pass.
    out << "<div class=\"banner incomplete\" id=\"gate-status\">A gate CANNOT JUDGE: a "
           "difference has no interval (run 2 or more trials per run, or compare 2 or more runs "
           "per side with --against).</div>\n";
  } else {
    out << "<div class=\"banner complete\" id=\"gate-status\">Every gate passed.</div>\n";
  }
  WriteHtmlTable(out, GatesTable(c), "gates");
}

}  // namespace

void WriteComparisonHtml(std::ostream& out, const RunComparison& c) {
  const std::vector<Chart> charts = ComparisonCharts(c);
  nlohmann::json specs = nlohmann::json::object();
  for (const Chart& chart : charts) {
    if (chart.drawn()) specs[chart.id] = chart.spec;
  }
  WritePageHead(out, fmt::format("pqc-bench compare: {} runs (baseline: run {})", c.runs.size(),
                                 c.baseline + 1));
  out << "<h2>Findings</h2>\n";
  List(out, "findings", ComparisonFindings(c));
  out << "<h2>Runs</h2>\n";
  WriteHtmlTable(out, RunsTable(c), "runs");
  if (!c.facts_that_differ.empty()) {
    out << "<h3>What differs besides the arms</h3>\n";
    List(out, "facts-that-differ", c.facts_that_differ);
  }
  if (!c.only_in_one.empty()) {
    out << "<h3>Arms not in every run (not compared)</h3>\n";
    std::vector<std::string> items;
    for (const UnmatchedArm& a : c.only_in_one) items.push_back(UnmatchedText(c, a));
    List(out, "unmatched", items);
  }
  WriteGates(out, c);
  out << "<h2>" << HtmlEscape(charts.front().title) << "</h2>\n";
  WriteChart(out, charts.front());
  for (size_t i = 0; i < c.arms.size(); ++i) {
    const MatchedArm& a = c.arms[i];
    out << "<h2 class=\"arm\">" << HtmlEscape(a.label) << "</h2>\n<p class=\"muted\">factors "
        << HtmlEscape(a.factors) << "</p>\n";
    WriteChart(out, charts[i + 1]);
    for (const ArmVersus& v : a.versus) {
      out << "<h3>" << HtmlEscape(VersusTitle(c, a, v)) << " (ms; difference = run " << v.run + 1
          << " − run " << c.baseline + 1 << ")"
          << (v.from_invalid_trials ? " — from INVALID trials" : "") << "</h3>\n";
      if (!v.setting_differences.empty()) {
        out << "<p class=\"warning\">settings that differ: "
            << HtmlEscape(SettingDifferencesText(v)) << "</p>\n";
      }
      const std::string id = fmt::format("arm-{}-run-{}", i, v.run + 1);
      WriteHtmlTable(out, LatencyTable(c, v), id + "-latency");
      WriteHtmlTable(out, CpuTable(c, v), id + "-cpu");
      WriteHtmlTable(out, BytesTable(c, v), id + "-bytes");
    }
  }
  WritePageEnd(out, specs);
}

}  // namespace pqc::report
