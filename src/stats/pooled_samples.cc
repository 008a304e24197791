#include "stats/pooled_samples.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <utility>

namespace pqc {
namespace {

// MergeSortedTrials: the trials' sorted values merged into one ascending array with the trial
// of each value. Sorting each trial's doubles and merging is about twice as fast as sorting
// (value, trial) pairs. Ties are ordered by trial; any fixed order would do.
void MergeSortedTrials(const std::vector<std::vector<double>>& sorted_trials,
                       std::vector<double>& values, std::vector<uint32_t>& trial_of) {
  using Head = std::pair<double, uint32_t>;  // value, trial
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::vector<size_t> next(sorted_trials.size(), 0);
  for (size_t t = 0; t < sorted_trials.size(); ++t) {
    heads.emplace(sorted_trials[t][0], static_cast<uint32_t>(t));
    next[t] = 1;
  }
  while (!heads.empty()) {
    const auto [value, t] = heads.top();
    heads.pop();
    values.push_back(value);
    trial_of.push_back(t);
    if (next[t] < sorted_trials[t].size()) heads.emplace(sorted_trials[t][next[t]++], t);
  }
}

}  // namespace

PooledSamples::PooledSamples(const TrialSamples& trials) : input_trial_count_(trials.size()) {
  std::vector<std::vector<double>> sorted_trials;
  double weighted_sum = 0;      // Σ n_t·mean_t
  double variance = 0;          // Σ (n_t/N)² s_t²/n_t, weights applied once N is known
  std::vector<double> spreads;  // s_t²/n_t per trial, NaN for a single sample
  for (size_t input = 0; input < trials.size(); ++input) {
    std::vector<double> values;
    values.reserve(trials[input].size());
    double mean = 0;
    double m2 = 0;
    for (double v : trials[input]) {
      if (std::isnan(v)) {
        ++skipped_nan_;
        continue;
      }
      values.push_back(v);
      // Welford's update: no catastrophic cancellation for latencies with a large mean.
      const double delta = v - mean;
      mean += delta / static_cast<double>(values.size());
      m2 += delta * (v - mean);
    }
    if (values.empty()) continue;
    const size_t n = values.size();
    std::sort(values.begin(), values.end());
    sorted_trials.push_back(std::move(values));
    trial_sizes_.push_back(n);
    input_index_.push_back(input);
    trial_means_.push_back(mean);
    weighted_sum += static_cast<double>(n) * mean;
    spreads.push_back(n < 2 ? Interval::kUndefined
                            : m2 / static_cast<double>(n - 1) / static_cast<double>(n));
  }
  const size_t n_trials = trial_sizes_.size();
  if (n_trials == 0) return;
  if (n_trials == 1) {
    values_ = std::move(sorted_trials[0]);
  } else {
    size_t total = 0;
    for (size_t n : trial_sizes_) total += n;
    values_.reserve(total);
    trial_of_.reserve(total);
    MergeSortedTrials(sorted_trials, values_, trial_of_);
  }
  const size_t n_total = values_.size();

  mean_ = n_trials == 1 ? trial_means_[0] : weighted_sum / static_cast<double>(n_total);
  bool any_spread = false;
  for (size_t t = 0; t < n_trials; ++t) {
    if (std::isnan(spreads[t])) continue;  // one sample: no spread, contributes nothing
    any_spread = true;
    const double weight = static_cast<double>(trial_sizes_[t]) / static_cast<double>(n_total);
    variance += weight * weight * spreads[t];
  }
  if (any_spread) mean_variance_ = variance;

  if (n_trials == 1) return;  // one trial: CountsBefore is the position itself
  const size_t n_checkpoints = n_total / kBlock + 1;
  checkpoints_.assign(n_checkpoints * n_trials, 0);
  std::vector<uint32_t> running(n_trials, 0);
  for (size_t b = 0; b < n_checkpoints; ++b) {
    std::copy(running.begin(), running.end(), checkpoints_.begin() + b * n_trials);
    const size_t end = std::min(n_total, (b + 1) * kBlock);
    for (size_t i = b * kBlock; i < end; ++i) ++running[trial_of_[i]];
  }
}

TrialSamples PooledSamples::ByTrial() const {
  TrialSamples out(input_trial_count_);
  for (size_t t = 0; t < trial_sizes_.size(); ++t) out[input_index_[t]].reserve(trial_sizes_[t]);
  for (size_t i = 0; i < values_.size(); ++i) out[input_index_[TrialAt(i)]].push_back(values_[i]);
  return out;
}

void PooledSamples::CountsBefore(size_t position, std::span<size_t> counts) const {
  const size_t n_trials = trial_sizes_.size();
  if (n_trials <= 1) {
    if (n_trials == 1) counts[0] = position;
    return;
  }
  const size_t block = position / kBlock;
  const uint32_t* base = checkpoints_.data() + block * n_trials;
  for (size_t t = 0; t < n_trials; ++t) counts[t] = base[t];
  for (size_t i = block * kBlock; i < position; ++i) ++counts[trial_of_[i]];
}

}  // namespace pqc
