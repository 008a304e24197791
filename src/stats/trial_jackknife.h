// trial_jackknife — intervals whose replicate is the trial, not the connection. Connections of
// one trial share the machine's state (clock frequency, neighbours, caches, the scheduler), so
// on a shared machine the trial-to-trial component of the variance dominates and an interval
// built from connections alone (bootstrap.h) is several times too narrow: the same study run
// twice "differed" in 68 of 80 cells. Here every interval's width comes from how much whole
// replicate units disagree — a trial, a block of trials (every arm once, side by side in time),
// or a run — which carries every level of variance below the unit with it (Kalibera & Jones,
// "Rigorous benchmarking in reasonable time", ISMM 2013: replicate at the level that holds the
// variance).
//
// The method: the estimate is the statistic of all samples pooled (the same pooled percentile
// or mean every table shows); its variance is the delete-one-unit jackknife,
//   v = (U − 1)/U · Σ_u (θ_(−u) − θ̄)²,   θ_(−u) the statistic with unit u's samples removed,
// and the interval is estimate ± t_{U−1} · √v (Student t with U − 1 degrees of freedom). Why:
// * With few units (a study has 3 to 15 trials per arm) a bootstrap over units is degenerate
//   (3 units give 10 distinct resamples) and has no small-sample correction; its coverage at
//   3 trials is far below nominal. The jackknife with Student t is exact for a mean of
//   normally varying trials and, for a percentile, each deleted unit is a large group, which
//   makes the delete-a-group jackknife consistent where the delete-one-observation jackknife
//   of a quantile is not. Coverage is proved by simulation in tests/trial_stats_test.cc.
// * Deleting a unit from both arms at once gives the paired difference: a block's shared state
//   cancels, as in a paired t test, without assuming the arms' trial sizes are equal.
// * Two independent sets of units (two runs) combine their jackknife variances with Welch–
//   Satterthwaite degrees of freedom, not rounded; several runs per side: run_difference.h.
// * One unit gives an estimate and no interval: one trial says nothing about the next.
// * A floor: the interval is never narrower than what the connections alone imply,
//   z · √(connection variance) (ConnectionVariance). A few tied or nearly equal units give a
//   jackknife variance of 0 or near it, which would make any nonzero difference
//   "detectable"; and for a tail percentile the connections' own sampling noise is a large part
//   of the truth that a jackknife over 3 to 8 units sees only by luck (p99 covered 93.4 %
//   without the floor, 94.4 % with it; tests/two_level_test.cc).
// Percentiles of the pooled samples without a unit are found exactly, by a binary search over
// the pooled order (PooledSamples::CountsBefore), O(U · log N · (64 + T)) per statistic: no
// resampling, deterministic, and a few milliseconds for 8 trials of 10^6 connections.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stats/pooled_samples.h"
#include "stats/statistic.h"

namespace pqc {

// UnitInterval: an estimate, its interval, the jackknife variance of the estimate, the
// variance its connections alone imply (the floor), the number of replicate units behind it
// and the (real) degrees of freedom of its t quantile. The interval is estimate ±
// max(t_df · √variance, z · √floor_variance). NaN where undefined (fewer than two units, or a
// percentile with fewer than min_tail samples beyond it).
struct UnitInterval {
  Interval interval;
  double variance = Interval::kUndefined;
  double floor_variance = Interval::kUndefined;
  double df = Interval::kUndefined;
  size_t units = 0;
};

// UnitOptions: valid when 0 < confidence < 1 and min_tail ≥ 0 (see bootstrap.h for min_tail:
// p99 needs 500 samples for an interval at 5).
struct UnitOptions {
  double confidence = 0.95;
  double min_tail = 5;
};

// Units: the replicate unit of each *input* trial of a PooledSamples (input order, empty
// trials included), e.g. each trial's block number, or each run's index.
using Units = std::span<const uint64_t>;

// StatisticWithout: the pooled statistic of `samples` with the samples of the non-empty
// trials t for which drop[t] is non-zero left out; NaN when nothing remains.
// Preconditions: drop.size() == samples.trial_count().
double StatisticWithout(const PooledSamples& samples, std::span<const uint8_t> drop,
                        Statistic statistic);

// LeaveOneUnitOut: for each distinct unit (ascending), its id and the statistic without it.
struct UnitValue {
  uint64_t unit = 0;
  double without = Interval::kUndefined;
};
std::vector<UnitValue> LeaveOneUnitOut(const PooledSamples& samples, Units units,
                                       Statistic statistic);

// TrialInterval: one arm's pooled statistic with its interval over units.
// Precondition: units.size() == samples.input_trial_count().
UnitInterval TrialInterval(const PooledSamples& samples, Units units, Statistic statistic,
                           const UnitOptions& options = {});

// PairedDifference: statistic(b) − statistic(a), the jackknife deleting each unit from both
// arms (a unit one arm lacks leaves that arm whole). For arms of one run paired by block. No
// interval unless each arm has two units or more (an arm of one unit has no variance to show).
UnitInterval PairedDifference(const PooledSamples& a, Units units_a, const PooledSamples& b,
                              Units units_b, Statistic statistic, const UnitOptions& options = {});

// IndependentDifference: statistic(b) − statistic(a) for two arms whose units pair nothing
// (two runs): variances and floors added, Welch–Satterthwaite degrees of freedom (real).
UnitInterval IndependentDifference(const UnitInterval& a, const UnitInterval& b,
                                   double confidence = 0.95);

// ConnectionVariance: the variance of the pooled statistic if every connection were an
// independent draw — the floor under an interval over units. Mean: the stratified variance
// (PooledSamples::StratifiedMeanVariance). Percentile q of N samples: from the spacing of the
// order statistics around rank qN, (x₍ₖ₊ₘ₎ − x₍ₖ₋ₘ₎)² / (2z)² with m = z·√(N q (1 − q)) and z
// the normal quantile at 97.5 % (widened to the nearest different values when all of that span
// is tied) — the distribution-free binomial interval of a quantile, which
// needs no density estimate — times Σ_t n_t·p_t(1 − p_t) / (N q(1 − q)), p_t the share of trial
// t's samples below the quantile: the variance were connections resampled within their trials
// (as the mean's), not across them. NaN with fewer than 2 samples.
double ConnectionVariance(const PooledSamples& samples, Statistic statistic);

// IntervalOf: estimate ± max(t_df · √variance, z · √floor_variance) at `confidence`; lo and hi
// NaN when the variance or df is undefined (a floor alone is no interval: one unit says nothing
// about the next). A NaN floor counts as 0.
UnitInterval IntervalOf(double estimate, double variance, double floor_variance, double df,
                        size_t units, double confidence);

// JackknifeVariance: (U − 1)/U · Σ (x_u − x̄)² over the defined values; NaN with fewer than 2.
double JackknifeVariance(std::span<const double> leave_one_out);

}  // namespace pqc
