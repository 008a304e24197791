#include "report/comparison_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "core/text_table.h"
#include "report/comparison_html.h"
#include "report/comparison_tables.h"

namespace pqc::report {
namespace {

using nlohmann::ordered_json;

ordered_json Num(std::optional<double> v) {
  return v ? ordered_json(*v) : ordered_json();
}

void WriteTable(std::ostream& out, const Table& t, bool markdown) {
  if (markdown) {
    WriteMarkdownTable(out, t);
  } else {
    WriteTextTable(out, t);
  }
}

void WriteText(std::ostream& out, const RunComparison& c, bool md) {
  const char* h1 = md ? "# " : "";
  const char* h2 = md ? "## " : "";
  out << h1 << "Comparison of " << c.runs.size() << " runs (baseline: run " << c.baseline + 1
      << ")\n\n"
      << h2 << "Findings\n\n";
  for (const std::string& f : ComparisonFindings(c)) out << "- " << f << '\n';
  out << '\n' << h2 << "Runs\n\n";
  WriteTable(out, RunsTable(c), md);
  if (!c.facts_that_differ.empty()) {
    out << '\n' << h2 << "What differs besides the arms\n\n";
    for (const std::string& f : c.facts_that_differ) out << "- " << f << '\n';
  }
  if (!c.only_in_one.empty()) {
    out << '\n' << h2 << "Arms not in every run (not compared)\n\n";
    for (const UnmatchedArm& a : c.only_in_one) out << "- " << UnmatchedText(c, a) << '\n';
  }
  for (const MatchedArm& a : c.arms) {
    for (const ArmVersus& v : a.versus) {
      out << '\n'
          << h2 << VersusTitle(c, a, v) << " (ms; difference = run " << v.run + 1 << " − run "
          << c.baseline + 1 << ")" << (v.from_invalid_trials ? " — from INVALID trials" : "")
          << "\n\n";
      if (!v.setting_differences.empty()) {
        out << "settings that differ: " << SettingDifferencesText(v) << "\n\n";
      }
      WriteTable(out, LatencyTable(c, v), md);
      out << '\n';
      WriteTable(out, CpuTable(c, v), md);
      out << '\n';
      WriteTable(out, BytesTable(c, v), md);
    }
  }
  if (!c.gates.empty()) {
    out << '\n' << h2 << "Gates\n\n";
    WriteTable(out, GatesTable(c), md);
  }
}

ordered_json DifferenceJson(const Difference& d) {
  return {{"estimate", Num(d.estimate)},
          {"ci", ordered_json::array({Num(d.lo), Num(d.hi)})},
          {"detectable", d.detectable},
          {"verdict", d.verdict},
          {"replicates", d.replicates}};
}

ordered_json Json(const RunComparison& c) {
  ordered_json j = {{"schema", "pqc-bench/compare/1"},
                    {"baseline", c.baseline + 1},
                    {"confidence", c.confidence},
                    {"replicate", c.replicate}};
  ordered_json runs = ordered_json::array();
  for (const ComparedRun& r : c.runs) {
    const RunFacts& f = r.facts;
    runs.push_back({{"path", r.path},
                    {"title", f.title},
                    {"scenario", f.scenario},
                    {"scenario_sha256", r.scenario_sha256},
                    {"started", f.started},
                    {"complete", f.complete},
                    {"cpu_model", f.cpu_model},
                    {"cores", f.cores},
                    {"kernel", f.kernel},
                    {"hostname", f.hostname},
                    {"openssl_version", f.openssl_version},
                    {"tool_version", f.tool_version},
                    {"git_commit", f.git_commit},
                    {"target", f.target},
                    {"network", f.network}});
  }
  j["runs"] = std::move(runs);
  j["findings"] = ComparisonFindings(c);
  j["facts_that_differ"] = c.facts_that_differ;
  ordered_json only = ordered_json::array();
  for (const UnmatchedArm& a : c.only_in_one) {
    only.push_back(
        {{"run", a.run + 1}, {"label", a.label}, {"factors", ordered_json::parse(a.factors)}});
  }
  j["arms_not_in_every_run"] = std::move(only);
  ordered_json arms = ordered_json::array();
  for (const MatchedArm& a : c.arms) {
    ordered_json versus = ordered_json::array();
    for (const ArmVersus& v : a.versus) {
      ordered_json phases = ordered_json::object();
      for (const PhaseVersus& p : v.phases) {
        ordered_json stats = ordered_json::object();
        for (const StatisticVersus& s : p.statistics) {
          stats[std::string(StatisticName(s.statistic))] = {
              {"baseline_us", Num(s.baseline_us)},
              {"other_us", Num(s.other_us)},
              {"difference_us", DifferenceJson(s.difference)},
              {"design_effect",
               {{"baseline", Num(s.baseline_design_effect)},
                {"other", Num(s.other_design_effect)}}}};
        }
        phases[std::string(PhaseName(p.phase))] = std::move(stats);
      }
      ordered_json bytes = ordered_json::object();
      for (const MessageVersus& m : v.bytes) {
        bytes[m.message] = {{"baseline", Num(m.baseline)}, {"other", Num(m.other)}};
      }
      ordered_json cpu = ordered_json::array();
      for (const CpuVersus& x : v.cpu) {
        cpu.push_back({{"what", x.what},
                       {"baseline_us", Num(x.baseline_us)},
                       {"other_us", Num(x.other_us)},
                       {"baseline_trials", x.baseline_trials},
                       {"other_trials", x.other_trials},
                       {"difference_us", DifferenceJson(x.difference)},
                       {"relative_pct", Num(x.relative_pct)}});
      }
      versus.push_back({{"run", v.run + 1},
                        {"baseline_arm", v.baseline_arm},
                        {"arm", v.arm},
                        {"from_invalid_trials", v.from_invalid_trials},
                        {"setting_differences", v.setting_differences},
                        {"phases", std::move(phases)},
                        {"cpu", std::move(cpu)},
                        {"bytes", std::move(bytes)}});
    }
    arms.push_back({{"label", a.label},
                    {"factors", ordered_json::parse(a.factors)},
                    {"versus", std::move(versus)}});
  }
  j["arms"] = std::move(arms);
  ordered_json gates = ordered_json::array();
  for (const GateResult& g : c.gates) {
    gates.push_back({{"gate", g.gate},
                     {"arm", g.arm},
                     {"run", g.run + 1},
                     {"baseline_us", Num(g.baseline_us)},
                     {"threshold_us", Num(g.threshold_us)},
                     {"difference_us", DifferenceJson(g.difference)},
                     {"failed", g.failed},
                     {"cannot_judge", g.cannot_judge}});
  }
  j["gates"] = std::move(gates);
  return j;
}

// WriteCsv: one row per arm, run, measure and statistic, fixed columns (the factors as their
// JSON in one cell): the latency phases, then the CPU per handshake ("cpu:server") and per
// connection ("cpu:client") as means over trials.
void WriteCsv(std::ostream& out, const RunComparison& c) {
  out << "arm,factors,run,baseline_run,measure,statistic,baseline_us,other_us,difference_us,"
         "lo_us,hi_us,detectable,from_invalid_trials\n";
  auto num = [](std::optional<double> v) { return v ? fmt::format("{}", *v) : std::string(); };
  for (const MatchedArm& a : c.arms) {
    for (const ArmVersus& v : a.versus) {
      auto row = [&](std::string_view measure, std::string_view statistic,
                     std::optional<double> base, std::optional<double> other, const Difference& d) {
        out << CsvField(a.label) << ',' << CsvField(a.factors) << ',' << v.run + 1 << ','
            << c.baseline + 1 << ',' << measure << ',' << statistic << ',' << num(base) << ','
            << num(other) << ',' << num(d.estimate) << ',' << num(d.lo) << ',' << num(d.hi) << ','
            << (d.detectable ? "true" : "false") << ','
            << (v.from_invalid_trials ? "true" : "false") << '\n';
      };
      for (const PhaseVersus& p : v.phases) {
        for (const StatisticVersus& s : p.statistics) {
          row(PhaseName(p.phase), StatisticName(s.statistic), s.baseline_us, s.other_us,
              s.difference);
        }
      }
      for (const CpuVersus& x : v.cpu) {
        row(x.what.starts_with("server") ? "cpu:server" : "cpu:client", "mean", x.baseline_us,
            x.other_us, x.difference);
      }
    }
  }
}

}  // namespace

Status WriteComparison(std::ostream& out, const RunComparison& c, Format format) {
  switch (format) {
    case Format::kTable:
      WriteText(out, c, false);
      break;
    case Format::kMarkdown:
      WriteText(out, c, true);
      break;
    case Format::kJson:
      out << Json(c).dump(2) << '\n';
      break;
    case Format::kCsv:
      WriteCsv(out, c);
      break;
    case Format::kHtml:
      WriteComparisonHtml(out, c);
      break;
  }
  if (!out) return MakeError(ErrorKind::kIo, "writing the comparison failed (disk full?)");
  return {};
}

}  // namespace pqc::report
