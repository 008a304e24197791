// arm_intervals — how sure a study's numbers are: every interval over blocks of trials
// (stats/trial_jackknife.h, docs/methodology.md "How sure a number is"), the split of each
// statistic's variance between trials and connections (stats/variance_components.h), and for a
// difference the trials that would resolve ±resolve_pct (stats/trial_plan.h). The half of
// study_summary that draws on the statistics of uncertainty; the other half describes the arms.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "report/arm_samples.h"
#include "report/summary.h"
#include "stats/bootstrap.h"

namespace pqc::report {

// kSummaryStatistics: the statistics every phase reports, in the summary's order.
inline constexpr std::array kSummaryStatistics = {Statistic::kMean, Statistic::kP50,
                                                  Statistic::kP95, Statistic::kP99};

// WithinVariances: one phase's variance of each statistic from its connections alone (the
// stratified bootstrap), in kSummaryStatistics' order; ArmWithin: every phase's, computed once
// per arm for its own components and every comparison it takes part in.
using WithinVariances = std::array<double, kSummaryStatistics.size()>;
using ArmWithin = std::array<WithinVariances, kAllPhases.size()>;
ArmWithin WithinVariancesOf(const ArmData& arm, const BootstrapOptions& bo);

// PhaseIntervals: `out.ci` (intervals over the arm's blocks) and `out.variance` (null with
// fewer than two blocks) of one phase's samples; `blocks` is the block of each input trial.
void PhaseIntervals(const PooledSamples& samples, std::span<const uint64_t> blocks,
                    const WithinVariances& within, const BootstrapOptions& bo, PhaseSummary& out);

// PhaseDifferences: phase p of arm b − arm a (the baseline), paired by block, each statistic
// with its verdict, the blocks it is over and its plan. Preconditions: both arms have samples
// of phase p.
StatisticDifferences PhaseDifferences(const ArmData& a, const ArmWithin& within_a, const ArmData& b,
                                      const ArmWithin& within_b, Phase p,
                                      const BootstrapOptions& bo, double resolve_pct);

}  // namespace pqc::report
