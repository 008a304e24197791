#include "report/comparison_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/text_table.h"

namespace pqc::report {
namespace {

using nlohmann::ordered_json;

std::string Ms(std::optional<double> us) {
  return us ? fmt::format("{:.3f}", *us / 1000.0) : "-";
}

ordered_json Num(std::optional<double> v) {
  return v ? ordered_json(*v) : ordered_json();
}

std::string RunName(const RunComparison& c, size_t k) {
  return fmt::format("run {}{}", k + 1, k == c.baseline ? " (baseline)" : "");
}

// Findings: for each arm, run and phase, its median and its tail (p50, p99) in one sentence
// when either differs detectably, each difference with its interval and its size relative to
// the baseline; the phases where neither does are counted and said to show none.
std::vector<std::string> Findings(const RunComparison& c) {
  std::vector<std::string> out;
  size_t undetectable = 0;
  for (const MatchedArm& a : c.arms) {
    for (const ArmVersus& v : a.versus) {
      for (const PhaseVersus& p : v.phases) {
        std::string parts;
        for (const StatisticVersus& s : p.statistics) {
          if (s.statistic != Statistic::kP50 && s.statistic != Statistic::kP99) continue;
          const double pct = s.baseline_us && *s.baseline_us != 0 && s.difference.estimate
                                 ? 100 * *s.difference.estimate / *s.baseline_us
                                 : NAN;
          parts += fmt::format("{}{} {}{}", parts.empty() ? "" : "; ", StatisticName(s.statistic),
                               s.difference.verdict,
                               s.difference.detectable && std::isfinite(pct)
                                   ? fmt::format(" ({:+.1f} %)", pct)
                                   : "");
        }
        const bool any = std::any_of(p.statistics.begin(), p.statistics.end(), [](const auto& s) {
          return (s.statistic == Statistic::kP50 || s.statistic == Statistic::kP99) &&
                 s.difference.detectable;
        });
        if (!any) {
          ++undetectable;
          continue;
        }
        out.push_back(fmt::format("{}, {} (run {} vs run {}): {}{}", a.label, PhaseName(p.phase),
                                  v.run + 1, c.baseline + 1, parts,
                                  v.from_invalid_trials ? " — from invalid trials" : ""));
      }
    }
  }
  const bool compared = std::any_of(c.arms.begin(), c.arms.end(),
                                    [](const MatchedArm& a) { return !a.versus.empty(); });
  if (!compared) {
    out.push_back(
        "no arm of the baseline run is in another run (arms match by their matrix "
        "factors): nothing was compared");
  } else if (undetectable > 0 || out.empty()) {
    out.push_back(
        fmt::format("{} arm phase(s): no difference detectable in p50 or p99 at {:.0f} "
                    "% confidence",
                    undetectable, c.confidence * 100));
  }
  return out;
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
  for (const std::string& f : Findings(c)) out << "- " << f << '\n';
  out << '\n' << h2 << "Runs\n\n";
  Table runs;
  runs.headers = {"run",     "path", "title",  "started", "cpu",     "cores",          "kernel",
                  "openssl", "tool", "commit", "target",  "network", "scenario sha256"};
  for (size_t k = 0; k < c.runs.size(); ++k) {
    const RunFacts& f = c.runs[k].facts;
    runs.rows.push_back({RunName(c, k), c.runs[k].path, f.title, f.started, f.cpu_model,
                         std::to_string(f.cores), f.kernel, f.openssl_version, f.tool_version,
                         f.git_commit, f.target, f.network,
                         c.runs[k].scenario_sha256.substr(0, 12)});
  }
  WriteTable(out, runs, md);
  if (!c.facts_that_differ.empty()) {
    out << '\n' << h2 << "What differs besides the arms\n\n";
    for (const std::string& f : c.facts_that_differ) out << "- " << f << '\n';
  }
  if (!c.only_in_one.empty()) {
    out << '\n' << h2 << "Arms not in every run (not compared)\n\n";
    for (const UnmatchedArm& a : c.only_in_one) {
      out << "- " << a.label << " " << a.factors << ": in run " << a.run + 1
          << (a.run == c.baseline ? " (baseline), missing from another" : " only") << '\n';
    }
  }
  for (const MatchedArm& a : c.arms) {
    for (const ArmVersus& v : a.versus) {
      out << '\n'
          << h2 << a.label << ": run " << v.run + 1 << " vs run " << c.baseline + 1
          << " (ms; difference = run " << v.run + 1 << " − run " << c.baseline + 1 << ")"
          << (v.from_invalid_trials ? " — from INVALID trials" : "") << "\n\n";
      if (!v.setting_differences.empty()) {
        out << "settings that differ: ";
        for (size_t i = 0; i < v.setting_differences.size(); ++i) {
          out << (i ? "; " : "") << v.setting_differences[i];
        }
        out << "\n\n";
      }
      Table t;
      t.headers = {"phase", "statistic", RunName(c, c.baseline), RunName(c, v.run), "difference"};
      t.right = {false, false, true, true, false};
      for (const PhaseVersus& p : v.phases) {
        for (const StatisticVersus& s : p.statistics) {
          t.rows.push_back({std::string(PhaseName(p.phase)),
                            std::string(StatisticName(s.statistic)), Ms(s.baseline_us),
                            Ms(s.other_us), s.difference.verdict});
        }
      }
      WriteTable(out, t, md);
      Table bytes;
      bytes.headers = {"bytes (mean)", RunName(c, c.baseline), RunName(c, v.run)};
      bytes.right = {false, true, true};
      for (const MessageVersus& m : v.bytes) {
        auto b = [](std::optional<double> x) { return x ? fmt::format("{:.0f}", *x) : "-"; };
        bytes.rows.push_back({m.message, b(m.baseline), b(m.other)});
      }
      out << '\n';
      WriteTable(out, bytes, md);
    }
  }
  if (!c.gates.empty()) {
    out << '\n' << h2 << "Gates\n\n";
    Table g;
    g.headers = {"gate", "arm", "run", "threshold (ms)", "difference", "result"};
    for (const GateResult& r : c.gates) {
      g.rows.push_back({r.gate, r.arm, std::to_string(r.run + 1), Ms(r.threshold_us),
                        r.difference.verdict, r.failed ? "FAILED" : "passed"});
    }
    WriteTable(out, g, md);
  }
}

ordered_json DifferenceJson(const Difference& d) {
  return {{"estimate", Num(d.estimate)},
          {"ci", ordered_json::array({Num(d.lo), Num(d.hi)})},
          {"detectable", d.detectable},
          {"verdict", d.verdict}};
}

ordered_json Json(const RunComparison& c) {
  ordered_json j = {{"schema", "pqc-bench/compare/1"},
                    {"baseline", c.baseline + 1},
                    {"confidence", c.confidence}};
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
  j["findings"] = Findings(c);
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
              {"difference_us", DifferenceJson(s.difference)}};
        }
        phases[std::string(PhaseName(p.phase))] = std::move(stats);
      }
      ordered_json bytes = ordered_json::object();
      for (const MessageVersus& m : v.bytes) {
        bytes[m.message] = {{"baseline", Num(m.baseline)}, {"other", Num(m.other)}};
      }
      versus.push_back({{"run", v.run + 1},
                        {"baseline_arm", v.baseline_arm},
                        {"arm", v.arm},
                        {"from_invalid_trials", v.from_invalid_trials},
                        {"setting_differences", v.setting_differences},
                        {"phases", std::move(phases)},
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
                     {"failed", g.failed}});
  }
  j["gates"] = std::move(gates);
  return j;
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
    default:
      return MakeError(ErrorKind::kUsage,
                       "compare --format: table, md or json (csv and html are report's formats; "
                       "compare does not write them yet)");
  }
  if (!out) return MakeError(ErrorKind::kIo, "writing the comparison failed (disk full?)");
  return {};
}

}  // namespace pqc::report
