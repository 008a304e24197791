// bootstrap — the variance of one arm's statistic that its connections alone account for,
// resampled within each trial. The intervals the tool prints are over trials
// (trial_jackknife.h: on a shared machine trials, not connections, are the replicates); this
// is their within-trial half, compared with them in variance_components.h (the design effect).
// StatisticInterval and DifferenceInterval remain as the connections-only method, which
// tests/two_level_test.cc shows undercovering when trials differ. Why these choices:
//
// * Percentiles pooled over trials: the estimate is the type-7 percentile of all samples of
//   all trials together (not an average of per-trial percentiles, which is not a percentile
//   of anything).
// * Stratified resampling: each bootstrap resample draws n_t samples with replacement from
//   trial t, for every trial, keeping the trial sizes. Resampling whole trials instead (a
//   cluster bootstrap) would also capture drift between trials, but with the 2–3 trials a
//   study has it is degenerate: 3 trials give at most 10 distinct resamples, and an interval
//   read from 10 points means nothing. So this answers "how precisely do these trials' own
//   connections pin down this arm's distribution"; how much trials disagree is what
//   trial_jackknife.h's intervals carry.
// * Percentiles are resampled exactly and fast (order_statistic_resampler.h: O(log N) per
//   resample instead of O(N log N)); the interval is the bootstrap percentile interval, the
//   (α/2, 1 − α/2) quantiles of the replicates: it stays inside the data's range and is
//   invariant under monotone transforms, which suits skewed latencies.
// * A percentile's interval is only given when enough samples lie beyond it on both sides,
//   N·min(q, 1 − q) ≥ min_tail (default 5: p99 needs 500 samples, p95 100, p50 10). Below
//   that the resamples' percentile is pinned to the sample maximum, and the "interval" would
//   look precise while saying nothing; NaN says it honestly.
// * The mean uses the normal approximation, mean ± z·√(Σ_t (n_t/N)² s_t²/n_t): the stratified
//   bootstrap's own variance of the mean (with unbiased s_t²), without resampling N values
//   1000 times. Sound for the sample sizes here (hundreds or more per arm); with heavy tails
//   and few samples it is optimistic — prefer percentiles there.
// * Differences b − a resample the two arms independently (different machines' states, no
//   pairing between their connections) and take the percentile interval of the replicate
//   differences; for the mean, the normal interval with the two variances added.
//
// Everything is deterministic for a given seed (std::mt19937_64 and libstdc++'s
// distributions), so tests and reports are reproducible.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "stats/pooled_samples.h"
#include "stats/statistic.h"

namespace pqc {

// BootstrapOptions: valid when 1 ≤ resamples ≤ kMaxResamples (1000 is the usual minimum for
// 95 % percentile intervals; the cap keeps a typo from allocating gigabytes), 0 < confidence
// < 1, min_tail ≥ 0. With invalid options every interval bound is NaN (the estimate is still
// given).
struct BootstrapOptions {
  static constexpr int kMaxResamples = 1'000'000;

  int resamples = 1000;
  double confidence = 0.95;
  uint64_t seed = 1;
  double min_tail = 5;
};

// StatisticInterval: pooled estimate and confidence interval of `statistic` over all trials'
// samples (NaN samples skipped, see PooledSamples). Estimate NaN when there are no samples;
// lo/hi NaN when N < 2, when a percentile has fewer than min_tail samples beyond it, or (mean)
// when no trial has two samples. The TrialSamples overload sorts the samples first: a caller
// computing several intervals of one arm should build the PooledSamples once.
Interval StatisticInterval(const PooledSamples& samples, Statistic statistic,
                           const BootstrapOptions& options);
Interval StatisticInterval(const TrialSamples& trials, Statistic statistic,
                           const BootstrapOptions& options);

// DifferenceInterval: estimate and interval of statistic(b) − statistic(a) (positive: b is
// larger, i.e. slower for latencies). The estimate is defined when both arms have samples;
// the interval when both arms' own intervals would be.
Interval DifferenceInterval(const PooledSamples& a, const PooledSamples& b, Statistic statistic,
                            const BootstrapOptions& options);
Interval DifferenceInterval(const TrialSamples& a, const TrialSamples& b, Statistic statistic,
                            const BootstrapOptions& options);

// StratifiedVariance: the variance of the pooled statistic when connections are resampled
// within their trials — the connections' own share of the estimate's variance, which the
// intervals over trials (trial_jackknife.h) are compared with in variance_components.h. For
// the mean, StratifiedMeanVariance(); for a percentile, the variance of `resamples` replicates.
// NaN where StatisticInterval would give no interval.
double StratifiedVariance(const PooledSamples& samples, Statistic statistic,
                          const BootstrapOptions& options);

// PercentileReplicates: `resamples` bootstrap replicates of the type-7 q-quantile (stratified
// resampling, exact; see order_statistic_resampler.h), in draw order. Exposed for tests and
// for callers that need the replicate distribution itself.
// Preconditions: 0 ≤ q ≤ 1 (clamped); empty when there are no samples, q is NaN or resamples
// is outside [1, kMaxResamples].
std::vector<double> PercentileReplicates(const PooledSamples& samples, double q, int resamples,
                                         std::mt19937_64& rng);

}  // namespace pqc
