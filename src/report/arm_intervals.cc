#include "report/arm_intervals.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/units.h"
#include "stats/trial_jackknife.h"
#include "stats/trial_plan.h"
#include "stats/variance_components.h"
#include "stats/verdict.h"

namespace pqc::report {
namespace {

size_t IndexOf(Statistic stat) {
  return static_cast<size_t>(std::find(kSummaryStatistics.begin(), kSummaryStatistics.end(), stat) -
                             kSummaryStatistics.begin());
}

UnitOptions UnitOptionsOf(const BootstrapOptions& bo) {
  return {.confidence = bo.confidence, .min_tail = bo.min_tail};
}

VarianceSplit SplitOf(const VarianceComponents& c) {
  return {.between_sd = Finite(std::sqrt(c.between_per_trial)),
          .within_sd = Finite(std::sqrt(c.within_per_trial)),
          .design_effect = Finite(c.design_effect),
          .icc = Finite(c.icc),
          .effective_connections = Finite(c.effective_connections),
          .trials_disagree = c.trials_disagree};
}

// kFewTrials: the verdict where an arm has fewer than two trials to vary over.
constexpr const char* kFewTrials =
    "no interval: cannot judge (an arm has fewer than two valid trials; the trial is the "
    "replicate: run 3 or more)";

size_t DistinctBlocks(const ArmData& a) {
  std::vector<uint64_t> b = a.blocks;
  std::sort(b.begin(), b.end());
  return static_cast<size_t>(std::unique(b.begin(), b.end()) - b.begin());
}

// SecondsOf: a duration setting of the arm in seconds (`fallback` when absent or unreadable).
double SecondsOf(const std::string& duration, double fallback) {
  if (duration.empty()) return fallback;
  const Result<int64_t> ns = ParseDuration(duration);
  return ns ? static_cast<double>(*ns) / 1e9 : fallback;
}

// kRestartSeconds: what a trial costs beyond its warm-up and measured phase (the target and the
// emulated link restarted, the schedule's lead): about a second here, measured on the quick
// study; a plan's totals are for choosing between plans, not a promise to the second.
constexpr double kRestartSeconds = 1.0;

// PlanOf: the trials that would resolve ±resolve_pct of the baseline's statistic, from the
// difference's own variance components; null when they cannot be estimated or are out of reach.
std::optional<TrialPlanSummary> PlanOf(const UnitInterval& d, double within, size_t connections,
                                       double baseline, const results::StoredArm& arm,
                                       double resolve_pct, double confidence) {
  const VarianceComponents c = ComponentsOf(d.variance, within, d.units, connections);
  const double resolve = std::abs(baseline) * resolve_pct / 100;
  const std::optional<TrialPlan> plan =
      PlanTrials({.between = c.between_per_trial,
                  .within = c.within_per_trial,
                  .duration_s = SecondsOf(arm.view.duration, NAN),
                  .overhead_s = SecondsOf(arm.view.warmup, 0) + kRestartSeconds,
                  .resolve = resolve,
                  .confidence = confidence});
  if (!plan) return std::nullopt;
  return TrialPlanSummary{.resolve_us = resolve,
                          .trials = plan->trials,
                          .duration_s = plan->duration_s,
                          .total_s = plan->total_s};
}

}  // namespace

ArmWithin WithinVariancesOf(const ArmData& a, const BootstrapOptions& bo) {
  ArmWithin out;
  for (Phase p : kAllPhases) {
    const auto& s = a.phases[static_cast<size_t>(p)];
    for (Statistic stat : kSummaryStatistics) {
      out[static_cast<size_t>(p)][IndexOf(stat)] = s ? StratifiedVariance(*s, stat, bo) : NAN;
    }
  }
  return out;
}

void PhaseIntervals(const PooledSamples& s, std::span<const uint64_t> blocks,
                    const WithinVariances& within, const BootstrapOptions& bo, PhaseSummary& out) {
  StatisticVariance variance;
  bool any = false;
  for (Statistic stat : kSummaryStatistics) {
    const UnitInterval i = TrialInterval(s, blocks, stat, UnitOptionsOf(bo));
    OfStatistic(out.ci, stat) = {Finite(i.interval.lo), Finite(i.interval.hi)};
    const VarianceComponents c =
        ComponentsOf(i.variance, within[IndexOf(stat)], i.units, s.size(), stat);
    OfStatistic(variance, stat) = SplitOf(c);
    any = any || std::isfinite(c.design_effect);
  }
  out.variance = any ? std::optional<StatisticVariance>(variance) : std::nullopt;
}

StatisticDifferences PhaseDifferences(const ArmData& a, const ArmWithin& within_a, const ArmData& b,
                                      const ArmWithin& within_b, Phase p,
                                      const BootstrapOptions& bo, double resolve_pct) {
  const auto phase = static_cast<size_t>(p);
  const PooledSamples& sa = *a.phases[phase];
  const PooledSamples& sb = *b.phases[phase];
  StatisticDifferences out;
  for (Statistic stat : kSummaryStatistics) {
    const UnitInterval d = PairedDifference(sa, a.blocks, sb, b.blocks, stat, UnitOptionsOf(bo));
    Verdict v = MakeVerdict(d.interval);
    if (std::isnan(d.interval.lo) && std::isfinite(d.interval.estimate) &&
        std::min(DistinctBlocks(a), DistinctBlocks(b)) < 2) {
      v.text = kFewTrials;
    }
    const size_t k = IndexOf(stat);
    const double within = within_a[phase][k] + within_b[phase][k];
    const double base = stat == Statistic::kMean ? sa.mean() : StatisticOf(sa.sorted(), stat);
    OfStatistic(out, stat) = {
        Finite(d.interval.estimate),
        Finite(d.interval.lo),
        Finite(d.interval.hi),
        v.detectable,
        std::move(v.text),
        d.units,
        PlanOf(d, within, sa.size() + sb.size(), base, *b.arm, resolve_pct, bo.confidence)};
  }
  return out;
}

}  // namespace pqc::report
