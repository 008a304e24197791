// html_report.cc — see html_report.h. The page is written top to bottom: head (html_page.h),
// run facts, tables, chart containers, then the page's end (the chart libraries and the
// script that renders every chart).
#include "report/html_report.h"

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "report/cell_format.h"
#include "report/chart_specs.h"
#include "report/cpu_tables.h"
#include "report/html_page.h"
#include "report/html_text.h"
#include "report/site_table.h"
#include "report/stop_lines.h"
#include "report/study_findings.h"
#include "report/variance_table.h"

namespace pqc {
namespace {

using nlohmann::json;
using report::ArmOutcome;
using report::ArmOutcomeName;
using report::ArmSummary;
using report::Fixed;
using report::FormatCount;
using report::HtmlEscape;
using report::kMissing;
using report::Ms;
using report::Summary;

std::string Cell(std::string_view text, bool numeric = false) {
  return report::HtmlCell(text, numeric);
}

std::optional<double> Count(uint64_t n) {
  return static_cast<double>(n);
}

void WriteFacts(const report::RunFacts& run, std::ostream& out) {
  const std::pair<std::string_view, std::string> facts[] = {
      {"scenario", run.scenario},
      {"scenario file", run.scenario_file},
      {"results", run.dir},
      {"pqc-bench", run.tool_version},
      {"commit", run.git_commit},
      {"OpenSSL", run.openssl_version},
      {"CPU", run.cpu_model},
      {"cores", fmt::format("{}", run.cores)},
      {"kernel", run.kernel},
      {"host", run.hostname},
      {"target", run.target},
      {"network", run.network},
      {"seed", fmt::format("{}", run.seed)},
      {"started", run.started},
      {"ended", run.ended.value_or(std::string(kMissing))},
  };
  out << "<dl class=\"facts\">\n";
  for (const auto& [label, value] : facts) {
    out << "<dt>" << HtmlEscape(label) << "</dt><dd>" << HtmlEscape(value) << "</dd>\n";
  }
  out << "</dl>\n";
  std::string planned = FormatCount(Count(run.trials_planned));
  std::string done = FormatCount(Count(run.trials_done));
  if (run.complete) {
    out << "<div class=\"banner complete\" id=\"run-status\">Complete: " << HtmlEscape(done)
        << " of " << HtmlEscape(planned) << " trials done.</div>\n";
  } else {
    out << "<div class=\"banner incomplete\" id=\"run-status\">INCOMPLETE: " << HtmlEscape(done)
        << " of " << HtmlEscape(planned)
        << " trials done. The run stopped early; the numbers below cover only what was "
           "measured.</div>\n";
  }
}

void WriteArmTable(const Summary& summary, std::ostream& out) {
  out << "<h2>Arms: handshake latency (ms)</h2>\n<table id=\"arms\">\n<tr><th>#</th><th>arm</th>"
         "<th>status</th><th class=\"num\">valid / done / planned trials</th>"
         "<th class=\"num\">connections</th><th class=\"num\">errors</th>"
         "<th class=\"num\">min</th><th class=\"num\">mean</th><th class=\"num\">p50</th>"
         "<th class=\"num\">p95</th><th class=\"num\">p99</th><th class=\"num\">max</th>"
         "<th class=\"num\">server CPU µs / handshake</th></tr>\n";
  for (const ArmSummary& arm : summary.arms) {
    const std::string status(ArmOutcomeName(arm.status));
    const report::PhaseSummary* handshake = arm.phase(Phase::kHandshake);
    auto stat = [&](std::optional<double> report::PhaseSummary::*member) {
      return Cell(Ms(handshake ? handshake->*member : std::nullopt), true);
    };
    std::string trial_counts =
        fmt::format("{} / {} / {}", FormatCount(Count(arm.trials.valid)),
                    FormatCount(Count(arm.trials.done)), FormatCount(Count(arm.trials.planned)));
    const std::optional<double> server_cpu = arm.cpu.server_us_per_handshake;
    out << "<tr class=\"arm\">" << Cell(fmt::format("{}", arm.id)) << Cell(arm.Name())
        << fmt::format("<td class=\"status-{}\">{}</td>", HtmlEscape(status), HtmlEscape(status))
        << Cell(trial_counts, true) << Cell(FormatCount(Count(arm.connections)), true)
        << Cell(FormatCount(Count(arm.errors)), true) << stat(&report::PhaseSummary::min)
        << stat(&report::PhaseSummary::mean) << stat(&report::PhaseSummary::p50)
        << stat(&report::PhaseSummary::p95) << stat(&report::PhaseSummary::p99)
        << stat(&report::PhaseSummary::max) << Cell(Fixed(server_cpu, 1), true) << "</tr>\n";
    std::string failure = arm.failure.value_or("");
    if (arm.status != ArmOutcome::kOk || !failure.empty()) {
      if (failure.empty())
        failure = arm.status == ArmOutcome::kInvalid ? "no valid trial" : "no reason given";
      out << "<tr class=\"failure\"><td></td><td colspan=\"12\"><div class=\"reason\">"
          << HtmlEscape(failure) << "</div></td></tr>\n";
    }
  }
  out << "</table>\n";
}

// WriteCpuTables: measured CPU vs floor, capacity, and the arms by client site (the same
// tables as the terminal's).
void WriteCpuTables(const Summary& summary, std::ostream& out) {
  for (const report::TitledTable& t :
       {report::FloorTable(summary), report::CapacityTable(summary), report::SiteTable(summary),
        report::VarianceTable(summary)}) {
    if (t.table.rows.empty()) continue;
    out << "<h2>" << HtmlEscape(t.title) << "</h2>\n<p class=\"muted\">" << HtmlEscape(t.note)
        << "</p>\n";
    report::WriteHtmlTable(out, t.table, t.id);
    if (t.lines.empty()) continue;
    out << "<ul id=\"" << HtmlEscape(t.id) << "-lines\">\n";
    for (const std::string& l : t.lines) out << "<li>" << HtmlEscape(l) << "</li>\n";
    out << "</ul>\n";
  }
}

void WriteComparisons(const Summary& summary, std::ostream& out) {
  out << "<h2>Comparisons</h2>\n";
  if (summary.comparisons.empty()) {
    out << "<p class=\"muted\">No comparisons in this run.</p>\n";
    return;
  }
  out << "<p class=\"muted\">Difference (arm − baseline) with its confidence interval; bold "
         "where the interval excludes zero.</p>\n<table id=\"comparisons\">\n<tr><th>phase</th>"
         "<th>factor</th><th>from → to</th><th>arms</th><th>p50</th><th>p95</th><th>p99</th>"
         "<th>mean</th></tr>\n";
  for (const report::Comparison& c : summary.comparisons) {
    out << "<tr>" << Cell(c.phase) << Cell(c.factor) << Cell(c.from + " → " + c.to)
        << Cell(fmt::format("{} → {}", c.baseline, c.arm));
    for (Statistic stat : {Statistic::kP50, Statistic::kP95, Statistic::kP99, Statistic::kMean}) {
      const report::Difference& d = report::OfStatistic(c.diffs, stat);
      out << fmt::format("<td class=\"{}\">{}</td>", d.detectable ? "detectable" : "muted",
                         HtmlEscape(d.verdict));
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

void WriteWarnings(const Summary& summary, std::ostream& out) {
  std::string items;
  for (const ArmSummary& arm : summary.arms) {
    for (const report::OutlierSummary& o : arm.outliers) {
      items += fmt::format(
          "<li class=\"warning outlier\">{}: trial {}, {} {} = {} ms (other trials' median {} ms): "
          "{}</li>\n",
          HtmlEscape(arm.Name()), o.trial, HtmlEscape(o.phase), HtmlEscape(o.statistic),
          Ms(o.value), Ms(o.others_median), HtmlEscape(o.reason));
    }
  }
  if (auto pilot = report::PilotLine(summary)) {
    items += fmt::format("<li class=\"pilot\">{}</li>\n", HtmlEscape(*pilot));
  }
  for (const report::TrialSummary& t : summary.trials) {
    if (t.valid || report::PilotTrial(t, summary.stop)) continue;
    std::string reasons;
    for (const std::string& r : t.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
    items +=
        fmt::format("<li class=\"warning invalid-trial\">arm {}, trial {}: invalid — {}</li>\n",
                    t.arm, t.index, HtmlEscape(reasons.empty() ? "no reason given" : reasons));
  }
  out << "<h2>Warnings</h2>\n";
  if (items.empty()) {
    out << "<p class=\"muted\">No outlier trials and no invalid trials.</p>\n";
  } else {
    out << "<ul id=\"warnings\">\n" << items << "</ul>\n";
  }
}

void WriteCharts(const Summary& summary, const std::vector<report::Chart>& charts,
                 std::ostream& out) {
  out << "<h2>Charts</h2>\n";
  std::string left_out;
  for (const ArmSummary& arm : summary.arms) {
    if (arm.status == ArmOutcome::kOk) continue;
    left_out += fmt::format("{}{} ({})", left_out.empty() ? "" : ", ", arm.Name(),
                            ArmOutcomeName(arm.status));
  }
  if (!left_out.empty()) {
    out << "<p class=\"muted\" id=\"not-charted\">Not in the charts, having no valid trial: "
        << HtmlEscape(left_out) << ".</p>\n";
  }
  for (const report::Chart& chart : charts) {
    out << "<h3>" << HtmlEscape(chart.title) << "</h3>\n";
    if (chart.drawn()) {
      out << "<p class=\"muted\">" << HtmlEscape(chart.caption)
          << "</p>\n<div class=\"chart\" id=\"" << HtmlEscape(chart.id) << "\" data-series=\""
          << chart.series << "\"></div>\n";
    } else {
      out << "<p class=\"omitted\" id=\"" << HtmlEscape(chart.id)
          << "-omitted\">Not drawn: " << HtmlEscape(chart.omitted) << ".</p>\n";
    }
  }
}

}  // namespace

Status WriteHtmlReport(const Summary& summary, std::ostream& out) {
  std::string title = summary.run.title;
  if (title.empty()) title = "pqc-bench: " + summary.run.scenario;

  std::vector<report::Chart> charts = report::BuildCharts(summary);
  json specs = json::object();
  for (const report::Chart& chart : charts) {
    if (chart.drawn()) specs[chart.id] = chart.spec;
  }

  report::WritePageHead(out, title);
  WriteFacts(summary.run, out);
  out << "<h2>Findings</h2>\n<ul id=\"findings\">\n";
  for (const std::string& f : report::StudyFindings(summary)) {
    out << "<li>" << HtmlEscape(f) << "</li>\n";
  }
  out << "</ul>\n";
  if (summary.stop) {
    const report::StopLines lines = report::LinesOf(*summary.stop);
    out << "<h2>A study that stopped itself</h2>\n<p id=\"stop\">" << HtmlEscape(lines.headline)
        << "</p>\n<ul id=\"stop-answers\">\n";
    for (const std::string& l : lines.answers) out << "<li>" << HtmlEscape(l) << "</li>\n";
    out << "</ul>\n";
  }
  WriteArmTable(summary, out);
  WriteCpuTables(summary, out);
  WriteComparisons(summary, out);
  WriteWarnings(summary, out);
  WriteCharts(summary, charts, out);

  report::WritePageEnd(out, specs);
  if (!out) return MakeError(ErrorKind::kIo, "could not write the HTML report (stream failed)");
  return {};
}

}  // namespace pqc
