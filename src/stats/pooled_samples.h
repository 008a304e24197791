// pooled_samples — one arm's trials prepared once (sorted, pooled, indexed by trial) so that
// many bootstrap intervals can be drawn from them without sorting 10^6 samples each time.
// The index answers "how many of trial t's samples lie below pooled position p" in O(block),
// which is what the exact stratified resampler (order_statistic_resampler.h) needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stats/statistic.h"

namespace pqc {

// PooledSamples: every sample of every trial in one ascending array, each remembering its
// trial, plus per-trial moments for the mean. Changed only by AddTrial, as a study grows.
// Input: trials in any order; NaN values are not latencies (the recorder never produces them)
// and are skipped, counted in skipped_nan(), so that sorting never sees them. Empty trials
// (after skipping) take no part: trial_count() counts the non-empty ones.
class PooledSamples {
 public:
  explicit PooledSamples(const TrialSamples& trials);

  // AddTrial: one more input trial (NaN skipped, as above), merged in place from the back, in
  // O(N + n log n) instead of the constructor's O(N log N) and without a second copy of the
  // pool: a study that looks after every block (stopping_rule.h) would otherwise sort every
  // sample again at each look — 10^6 of them cost about a tenth of a second, beyond the 1 % of
  // a block a decision may take. WithTrial: the same on a copy.
  void AddTrial(std::span<const double> trial);
  PooledSamples WithTrial(std::span<const double> trial) const;

  // size: N, the number of pooled samples.
  size_t size() const { return values_.size(); }
  // sorted: the pooled samples, ascending.
  std::span<const double> sorted() const { return values_; }
  // trial_count: number of non-empty trials (T); trials are renumbered 0..T−1 in input order.
  size_t trial_count() const { return trial_sizes_.size(); }
  // input_trial_count: number of trials in the input, empty ones included.
  size_t input_trial_count() const { return input_trial_count_; }
  // input_index: the input position of non-empty trial t.
  size_t input_index(size_t t) const { return input_index_[t]; }
  // TrialAt: the trial (0..T−1) of sorted()[position]. Precondition: position < size().
  size_t TrialAt(size_t position) const { return trial_of_.empty() ? 0 : trial_of_[position]; }
  // trial_mean: the mean of non-empty trial t alone.
  double trial_mean(size_t t) const { return trial_means_[t]; }
  // trial_sizes: n_t of each non-empty trial; they sum to size().
  std::span<const size_t> trial_sizes() const { return trial_sizes_; }
  size_t skipped_nan() const { return skipped_nan_; }

  // mean: the pooled mean (NaN when empty).
  double mean() const { return mean_; }
  // StratifiedMeanVariance: the variance of the pooled mean when each trial is resampled with
  // its own size, Σ_t (n_t/N)² · s_t²/n_t with s_t² the unbiased variance of trial t. NaN when
  // no trial has two samples (nothing to estimate a spread from).
  double StratifiedMeanVariance() const { return mean_variance_; }

  // ByTrial: the samples again as one ascending vector per input trial (empty ones included),
  // for callers that pool several PooledSamples into one (the runs of one side of a
  // comparison). O(N).
  TrialSamples ByTrial() const;

  // CountsBefore: counts[t] = number of trial t's samples among sorted()[0, position).
  // Preconditions: position ≤ size(); counts.size() == trial_count(). Cost: O(kBlock).
  void CountsBefore(size_t position, std::span<size_t> counts) const;

 private:
  // Positions between checkpoints of per-trial counts: memory is T·N/kBlock counters, a
  // query scans fewer than kBlock trial ids.
  static constexpr size_t kBlock = 64;

  // Index: the pooled mean, its stratified variance and the checkpoints, from values_,
  // trial_of_ and the per-trial moments.
  void Index();

  std::vector<double> values_;
  std::vector<uint32_t> trial_of_;     // trial of values_[i]; empty when T ≤ 1
  std::vector<uint32_t> checkpoints_;  // [b·T + t] = count of trial t before b·kBlock
  std::vector<size_t> trial_sizes_;
  std::vector<size_t> input_index_;
  std::vector<double> trial_means_;
  std::vector<double> spreads_;  // s_t²/n_t per non-empty trial, NaN for a single sample
  size_t input_trial_count_ = 0;
  size_t skipped_nan_ = 0;
  double mean_ = Interval::kUndefined;
  double mean_variance_ = Interval::kUndefined;
};

}  // namespace pqc
