#include "report/comparison_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/cell_format.h"

namespace pqc::report {
namespace {

std::string Us(std::optional<double> us) {
  return Fixed(us, 1);
}

// Relative: " (+12.3 %)" for a detectable difference against a non-zero baseline.
std::string Relative(const Difference& d, std::optional<double> baseline) {
  if (!d.detectable || !d.estimate || !baseline || *baseline == 0) return "";
  return fmt::format(" ({:+.1f} %)", 100 * *d.estimate / *baseline);
}

bool Headline(Statistic s) {
  return s == Statistic::kP50 || s == Statistic::kP99;
}

}  // namespace

std::string RunName(const RunComparison& c, size_t k) {
  return fmt::format("run {}{}", k + 1, k == c.baseline ? " (baseline)" : "");
}

std::string VersusTitle(const RunComparison& c, const MatchedArm& a, const ArmVersus& v) {
  return fmt::format("{}: run {} vs run {}", a.label, v.run + 1, c.baseline + 1);
}

std::vector<std::string> ComparisonFindings(const RunComparison& c) {
  std::vector<std::string> out;
  size_t undetectable = 0, unjudged = 0;
  for (const MatchedArm& a : c.arms) {
    for (const ArmVersus& v : a.versus) {
      const std::string invalid = v.from_invalid_trials ? " — from invalid trials" : "";
      for (const PhaseVersus& p : v.phases) {
        std::string parts;
        bool any = false, judged = false;
        for (const StatisticVersus& s : p.statistics) {
          if (!Headline(s.statistic)) continue;
          any = any || s.difference.detectable;
          judged = judged || (s.difference.lo && s.difference.hi);
          parts += fmt::format("{}{} {}{}", parts.empty() ? "" : "; ", StatisticName(s.statistic),
                               s.difference.verdict, Relative(s.difference, s.baseline_us));
        }
        if (!any) {
          ++(judged ? undetectable : unjudged);
          continue;
        }
        out.push_back(fmt::format("{}, {} (run {} vs run {}): {}{}", a.label, PhaseName(p.phase),
                                  v.run + 1, c.baseline + 1, parts, invalid));
      }
      for (const CpuVersus& cpu : v.cpu) {
        if (!cpu.difference.detectable) continue;
        out.push_back(fmt::format("{}, {} (run {} vs run {}, over {} and {} trials): {}{}", a.label,
                                  cpu.what, v.run + 1, c.baseline + 1, cpu.other_trials,
                                  cpu.baseline_trials, cpu.difference.verdict,
                                  Relative(cpu.difference, cpu.baseline_us), invalid));
      }
    }
  }
  const bool compared = std::any_of(c.arms.begin(), c.arms.end(),
                                    [](const MatchedArm& a) { return !a.versus.empty(); });
  if (!compared) {
    out.push_back(
        "no arm of the baseline run is in another run (arms match by their matrix "
        "factors): nothing was compared");
  } else {
    if (unjudged > 0) {
      // Never "not detectable" without an interval: one trial says nothing about the next.
      out.push_back(fmt::format(
          "{} arm phase(s): no interval: cannot judge (run 2 or more trials per run, or compare "
          "2 or more runs per side with --against)",
          unjudged));
    }
    if (undetectable > 0 || out.empty()) {
      out.push_back(
          fmt::format("{} arm phase(s): no difference detectable in p50 or p99 at {:.0f} "
                      "% confidence",
                      undetectable, c.confidence * 100));
    }
  }
  if (compared) {
    out.push_back(c.replicate == "run"
                      ? "Intervals have the run as a level (trials within runs, runs within a "
                        "side): the variance between runs is in them."
                      : "Intervals are over each run's trials: drift between the runs "
                        "themselves is not in them (give several runs per side, `compare A1 A2 "
                        "--against B1 B2`, to include it).");
  }
  return out;
}

std::string UnmatchedText(const RunComparison& c, const UnmatchedArm& a) {
  return fmt::format("{} {}: in run {}{}", a.label, a.factors, a.run + 1,
                     a.run == c.baseline ? " (baseline), missing from another" : " only");
}

std::string SettingDifferencesText(const ArmVersus& v) {
  std::string out;
  for (const std::string& d : v.setting_differences) out += (out.empty() ? "" : "; ") + d;
  return out;
}

Table RunsTable(const RunComparison& c) {
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
  return runs;
}

Table LatencyTable(const RunComparison& c, const ArmVersus& v) {
  Table t;
  t.headers = {"phase",           "statistic",  RunName(c, c.baseline),
               RunName(c, v.run), "difference", "design effect"};
  t.right = {false, false, true, true, false, true};
  auto deff = [](std::optional<double> d) { return Fixed(d, 1); };
  for (const PhaseVersus& p : v.phases) {
    for (const StatisticVersus& s : p.statistics) {
      t.rows.push_back({std::string(PhaseName(p.phase)), std::string(StatisticName(s.statistic)),
                        Ms(s.baseline_us), Ms(s.other_us),
                        s.difference.verdict + Relative(s.difference, s.baseline_us),
                        deff(s.baseline_design_effect) + " / " + deff(s.other_design_effect)});
    }
  }
  return t;
}

Table CpuTable(const RunComparison& c, const ArmVersus& v) {
  Table t;
  t.headers = {"CPU (µs, mean over trials)", RunName(c, c.baseline), RunName(c, v.run), "trials",
               "difference [Welch t interval over trials]"};
  t.right = {false, true, true, true, false};
  for (const CpuVersus& cpu : v.cpu) {
    t.rows.push_back({cpu.what, Us(cpu.baseline_us), Us(cpu.other_us),
                      fmt::format("{} / {}", cpu.baseline_trials, cpu.other_trials),
                      cpu.difference.verdict + Relative(cpu.difference, cpu.baseline_us)});
  }
  return t;
}

Table BytesTable(const RunComparison& c, const ArmVersus& v) {
  Table bytes;
  bytes.headers = {"bytes (mean)", RunName(c, c.baseline), RunName(c, v.run)};
  bytes.right = {false, true, true};
  auto b = [](std::optional<double> x) { return Fixed(x, 0); };
  for (const MessageVersus& m : v.bytes) {
    bytes.rows.push_back({m.message, b(m.baseline), b(m.other)});
  }
  return bytes;
}

Table GatesTable(const RunComparison& c) {
  Table g;
  g.headers = {"gate", "arm", "run", "threshold (ms)", "difference", "result"};
  for (const GateResult& r : c.gates) {
    g.rows.push_back({r.gate, r.arm, std::to_string(r.run + 1), Ms(r.threshold_us),
                      r.difference.verdict,
                      r.failed ? "FAILED" : (r.cannot_judge ? "CANNOT JUDGE" : "passed")});
  }
  return g;
}

}  // namespace pqc::report
