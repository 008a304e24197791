#include "report/comparison_charts.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/comparison_tables.h"

namespace pqc::report {
namespace {

using nlohmann::json;

}  // namespace

Chart ArmSpectraChart(const RunComparison& c, size_t index) {
  const MatchedArm& a = c.arms[index];
  // The report's spectrum chart, fed one "arm" per run: the lines are the runs.
  Summary runs;
  for (const RunSpectra& r : a.spectra) {
    ArmSummary& s = runs.arms.emplace_back();
    s.label = RunName(c, r.run);
    s.status = ArmOutcome::kOk;
    for (size_t p = 0; p < r.phases.size(); ++p) {
      if (!r.phases[p].empty()) s.phases[p] = PhaseSummary{.spectrum = r.phases[p]};
    }
  }
  Chart chart = SpectrumChart(runs);
  chart.id = fmt::format("chart-spectrum-{}", index);
  chart.title = fmt::format("{}: latency by percentile, run by run", a.label);
  chart.caption =
      "Each line is one run of this arm; the horizontal axis stretches the tail "
      "(−log10(1 − q)), so p99, p99.9 and the maximum stand apart.";
  if (a.versus.empty()) {
    chart.spec = nullptr;
    chart.omitted = "this arm is in one run only";
  }
  return chart;
}

Chart DifferencesChart(const RunComparison& c) {
  Chart chart{.id = "chart-differences",
              .title = "Differences from the baseline run",
              .caption = fmt::format(
                  "Each bar is a difference (run − run {}) in ms; the rule across it is its {:.0f} "
                  "% interval over trials (or runs). A rule that crosses 0 is no detectable "
                  "difference.",
                  c.baseline + 1, c.confidence * 100)};
  json rows = json::array();
  std::vector<std::string> phases, names;
  for (const MatchedArm& a : c.arms) {
    for (const ArmVersus& v : a.versus) {
      const std::string name =
          c.runs.size() > 2 ? fmt::format("{} · run {}", a.label, v.run + 1) : a.label;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      for (const PhaseVersus& p : v.phases) {
        const std::string phase(PhaseName(p.phase));
        if (std::find(phases.begin(), phases.end(), phase) == phases.end()) {
          phases.push_back(phase);
        }
        for (const StatisticVersus& s : p.statistics) {
          if (!s.difference.estimate) continue;
          rows.push_back({{"arm", name},
                          {"phase", phase},
                          {"statistic", std::string(StatisticName(s.statistic))},
                          {"ms", ChartMs(s.difference.estimate)},
                          {"lo", ChartMs(s.difference.lo)},
                          {"hi", ChartMs(s.difference.hi)},
                          {"verdict", s.difference.verdict}});
        }
      }
    }
  }
  if (rows.empty()) {
    chart.omitted = "no arm is in two runs";
    return chart;
  }
  const std::string initial = std::find(phases.begin(), phases.end(), "handshake") != phases.end()
                                  ? "handshake"
                                  : phases.front();
  for (const json& r : rows) chart.series += r["phase"] == initial ? 1 : 0;
  const json statistics = json::array({"p50", "p95", "p99", "mean"});
  const json y = {{"field", "arm"}, {"type", "nominal"}, {"title", nullptr}, {"sort", names}};
  const json offset = {{"field", "statistic"}, {"type", "nominal"}, {"sort", statistics}};
  // The phase filter sits in the two layers of differences (not at the top), so that the
  // zero line, which has data of its own, spans the whole chart.
  const json filter = phases.size() == 1
                          ? json{{"filter", {{"field", "phase"}, {"equal", initial}}}}
                          : json{{"filter", "datum.phase === phase"}};
  json spec = BaseChartSpec();
  spec["height"] = {{"step", 14}};
  spec["data"] = {{"values", rows}};
  if (phases.size() > 1) {
    spec["params"] =
        json::array({{{"name", "phase"},
                      {"value", initial},
                      {"bind", {{"input", "select"}, {"options", phases}, {"name", "phase "}}}}});
  }
  spec["layer"] = json::array(
      {{{"transform", json::array({filter})},
        {"mark", {{"type", "bar"}, {"opacity", 0.7}}},
        {"encoding",
         {{"y", y},
          {"yOffset", offset},
          {"x", {{"field", "ms"}, {"type", "quantitative"}, {"title", "difference (ms)"}}},
          {"color",
           {{"field", "statistic"}, {"type", "nominal"}, {"sort", statistics}, {"title", nullptr}}},
          {"tooltip", json::array({{{"field", "arm"}},
                                   {{"field", "phase"}},
                                   {{"field", "statistic"}},
                                   {{"field", "verdict"}}})}}}},
       {{"transform",
         json::array({filter, {{"filter", "isValid(datum.lo) && isValid(datum.hi)"}}})},
        {"mark", {{"type", "rule"}, {"color", "#222"}}},
        {"encoding",
         {{"y", y},
          {"yOffset", offset},
          {"x", {{"field", "lo"}, {"type", "quantitative"}}},
          {"x2", {{"field", "hi"}}}}}},
       {{"data", {{"values", json::array({{{"zero", 0}}})}}},
        {"mark", {{"type", "rule"}, {"color", "#888"}, {"strokeDash", json::array({4, 3})}}},
        {"encoding", {{"x", {{"field", "zero"}, {"type", "quantitative"}}}}}}});
  chart.spec = std::move(spec);
  return chart;
}

std::vector<Chart> ComparisonCharts(const RunComparison& c) {
  std::vector<Chart> charts{DifferencesChart(c)};
  for (size_t i = 0; i < c.arms.size(); ++i) charts.push_back(ArmSpectraChart(c, i));
  return charts;
}

}  // namespace pqc::report
