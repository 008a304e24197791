#include "report/study_findings.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/comparison_phase.h"

namespace pqc::report {
namespace {

const ArmSummary* ArmById(const Summary& s, uint64_t id) {
  for (const ArmSummary& a : s.arms) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

std::optional<double> StatisticOf(const PhaseSummary* p, Statistic stat) {
  if (p == nullptr) return std::nullopt;
  return stat == Statistic::kP50 ? p->p50 : p->p99;
}

// Difference: "p50 +0.213 ms [0.203, 0.223] (+14 %)".
std::string DifferenceText(const Difference& d, Statistic stat, std::optional<double> baseline) {
  std::string text = fmt::format("{} {}", StatisticName(stat), d.verdict);
  if (d.detectable && d.estimate && baseline && *baseline > 0) {
    text += fmt::format(" ({:+.0f} %)", 100 * *d.estimate / *baseline);
  }
  return text;
}

// ServerCpu: "; the server spends +10 % CPU per handshake [-37 %, +57 %]", from the capacity
// view (paired by block), or "" when the arm has no classical baseline there.
std::string ServerCpu(const Summary& s, uint64_t arm, uint64_t baseline) {
  for (const CapacityArmSummary& c : s.capacity.arms) {
    if (c.arm != arm || !c.more_cpu_pct || c.baseline != baseline) continue;
    const MoreCpu& more = *c.more_cpu_pct;
    if (!more.estimate) return "";
    if (!more.ci.lo || !more.ci.hi) {
      return fmt::format(
          "; the server spends {:+.0f} % CPU per handshake (no interval: cannot judge; run 2 or "
          "more trials)",
          *more.estimate);
    }
    const bool detectable = *more.ci.lo > 0 || *more.ci.hi < 0;
    return fmt::format("; the server spends {:+.0f} % CPU per handshake [{:+.0f} %, {:+.0f} %]{}",
                       *more.estimate, *more.ci.lo, *more.ci.hi,
                       detectable ? "" : " (no difference detectable)");
  }
  return "";
}

// PlanText: " (to resolve ±2 % (±0.025 ms) here, run 14 trials of 2s: `--trials 14 --set
// duration=2s`)" for a difference the data cannot show, when the run's own variance
// components say what would.
std::string PlanText(const Difference& d, double resolve_pct) {
  if (d.detectable || !d.plan) return "";
  const TrialPlanSummary& p = *d.plan;
  const std::string duration = fmt::format("{}s", p.duration_s);
  return fmt::format(
      " (to resolve ±{:g} % (±{:.3f} ms) here, run {} trials of {}: `--trials {} "
      "--set duration={}`)",
      resolve_pct, p.resolve_us / 1000, p.trials, duration, p.trials, duration);
}

// ControlSentence: how an A/A pair (identical arms) came out, and what it means.
std::string ControlSentence(const Comparison& c, const ArmSummary& arm, const ArmSummary& base) {
  const Difference& d = c.diffs.p50;
  std::string out = fmt::format("A/A control ({} vs {}, identical arms): {} p50 {}", arm.Name(),
                                base.Name(), c.phase, d.verdict);
  if (d.detectable) {
    return out +
           " — a difference between identical arms: the machine drifted more than its "
           "trials show; distrust differences of this size.";
  }
  return out + (d.lo && d.hi ? " — as it should." : ".");
}

// VarianceSentence: says plainly when trials disagree more than their connections do.
std::string VarianceSentence(const Summary& s) {
  size_t disagree = 0, with = 0;
  double worst = 0;
  for (const ArmSummary& a : s.arms) {
    const PhaseSummary* h = a.phase(Phase::kHandshake);
    if (h == nullptr || !h->variance || !h->variance->p50.design_effect) continue;
    ++with;
    if (h->variance->p50.trials_disagree) {
      ++disagree;
      worst = std::max(worst, *h->variance->p50.design_effect);
    }
  }
  if (disagree == 0) return "";
  return fmt::format(
      "Trials disagree more than their connections do ({} of {} arms, handshake p50; the "
      "variance is up to {:.1f}× what the connections alone would give): every interval here is "
      "over trials, so more trials, not longer ones, narrow it.",
      disagree, with, worst);
}

std::string WithInterval(const char* name, std::optional<double> value, const Bounds& ci) {
  if (!value) return fmt::format("{} –", name);
  if (!ci.lo || !ci.hi) return fmt::format("{} {:.3f} ms (no interval)", name, *value / 1000);
  return fmt::format("{} {:.3f} ms [{:.3f}, {:.3f}]", name, *value / 1000, *ci.lo / 1000,
                     *ci.hi / 1000);
}

}  // namespace

std::vector<std::string> StudyFindings(const Summary& s) {
  std::vector<std::string> out;
  const std::string first = s.factors.empty() ? "" : s.factors.front();
  for (const Comparison& c : s.comparisons) {
    const std::optional<Phase> phase = ComparisonPhase(c);
    // A payload sweep changes the response, not the handshake: its response is said too.
    const bool wanted = (phase == Phase::kHandshake && c.factor == first) ||
                        (phase == Phase::kResponse && c.factor == "payload");
    const ArmSummary* arm = ArmById(s, c.arm);
    const ArmSummary* base = ArmById(s, c.baseline);
    if (arm == nullptr || base == nullptr) continue;
    if (c.control && phase == Phase::kHandshake) {
      out.push_back(ControlSentence(c, *arm, *base));
      continue;
    }
    if (!wanted) continue;
    const PhaseSummary* bp = base->phase(*phase);
    std::string sentence =
        fmt::format("{} vs {}: {} {}, {}", arm->Name(), base->Name(), c.phase,
                    DifferenceText(c.diffs.p50, Statistic::kP50, StatisticOf(bp, Statistic::kP50)) +
                        PlanText(c.diffs.p50, s.run.resolve_pct),
                    DifferenceText(c.diffs.p99, Statistic::kP99, StatisticOf(bp, Statistic::kP99)));
    if (*phase == Phase::kHandshake) sentence += ServerCpu(s, c.arm, c.baseline);
    if (c.from_invalid_trials) sentence += " — from INVALID trials";
    out.push_back(sentence + ".");
  }
  if (out.empty()) {
    // Nothing to compare (one arm, or no arm pair differing in one factor): each arm alone.
    for (const ArmSummary& a : s.arms) {
      const PhaseSummary* h = a.phase(Phase::kHandshake);
      if (a.status == ArmOutcome::kFailed || h == nullptr) continue;
      out.push_back(fmt::format("{}: handshake {}, {}{}.", a.Name(),
                                WithInterval("p50", h->p50, h->ci.p50),
                                WithInterval("p99", h->p99, h->ci.p99),
                                a.from_invalid_trials ? " — from INVALID trials" : ""));
    }
  }
  if (std::string v = VarianceSentence(s); !v.empty()) out.push_back(std::move(v));
  for (const ArmSummary& a : s.arms) {
    if (a.status == ArmOutcome::kFailed) {
      out.push_back(fmt::format("{} FAILED: {}.", a.Name(), a.failure.value_or("no reason given")));
    } else if (a.status == ArmOutcome::kInvalid) {
      out.push_back(fmt::format(
          "{} has no valid trial: its numbers are shown but not to be trusted (see problems).",
          a.Name()));
    }
  }
  return out;
}

}  // namespace pqc::report
