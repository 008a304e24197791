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

// SortTrial: one trial's values without NaN, sorted, with their mean and s²/n (NaN for a
// single sample: no spread to estimate).
struct SortedTrial {
  std::vector<double> values;
  double mean = 0;
  double spread = Interval::kUndefined;
  size_t skipped_nan = 0;
};

SortedTrial SortTrial(std::span<const double> trial) {
  SortedTrial out;
  out.values.reserve(trial.size());
  double m2 = 0;
  for (double v : trial) {
    if (std::isnan(v)) {
      ++out.skipped_nan;
      continue;
    }
    out.values.push_back(v);
    // Welford's update: no catastrophic cancellation for latencies with a large mean.
    const double delta = v - out.mean;
    out.mean += delta / static_cast<double>(out.values.size());
    m2 += delta * (v - out.mean);
  }
  const size_t n = out.values.size();
  if (n >= 2) out.spread = m2 / static_cast<double>(n - 1) / static_cast<double>(n);
  std::sort(out.values.begin(), out.values.end());
  return out;
}

}  // namespace

PooledSamples::PooledSamples(const TrialSamples& trials) : input_trial_count_(trials.size()) {
  std::vector<std::vector<double>> sorted_trials;
  for (size_t input = 0; input < trials.size(); ++input) {
    SortedTrial t = SortTrial(trials[input]);
    skipped_nan_ += t.skipped_nan;
    if (t.values.empty()) continue;
    trial_sizes_.push_back(t.values.size());
    input_index_.push_back(input);
    trial_means_.push_back(t.mean);
    spreads_.push_back(t.spread);
    sorted_trials.push_back(std::move(t.values));
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
  Index();
}

PooledSamples PooledSamples::WithTrial(std::span<const double> trial) const {
  PooledSamples out = *this;
  out.AddTrial(trial);
  return out;
}

void PooledSamples::AddTrial(std::span<const double> trial) {
  SortedTrial t = SortTrial(trial);
  const size_t input = input_trial_count_++;
  skipped_nan_ += t.skipped_nan;
  if (t.values.empty()) return;  // nothing pooled changes
  const auto added = static_cast<uint32_t>(trial_sizes_.size());
  trial_sizes_.push_back(t.values.size());
  input_index_.push_back(input);
  trial_means_.push_back(t.mean);
  spreads_.push_back(t.spread);
  if (added == 0) {
    values_ = std::move(t.values);
    Index();
    return;
  }
  // Merge from the back into the grown arrays; on a tie the new trial's value goes last (the
  // constructor's order: by trial).
  const size_t old_n = values_.size();
  if (trial_of_.empty()) trial_of_.assign(old_n, 0);  // one trial: its ids were implicit
  values_.resize(old_n + t.values.size());
  trial_of_.resize(values_.size());
  size_t i = old_n, j = t.values.size(), k = values_.size();
  while (j > 0) {
    if (i > 0 && values_[i - 1] > t.values[j - 1]) {
      --i;
      values_[--k] = values_[i];
      trial_of_[k] = trial_of_[i];
    } else {
      values_[--k] = t.values[--j];
      trial_of_[k] = added;
    }
  }
  Index();
}

void PooledSamples::Index() {
  const size_t n_trials = trial_sizes_.size();
  if (n_trials == 0) return;
  const size_t n_total = values_.size();
  double weighted_sum = 0;  // Σ n_t·mean_t
  for (size_t t = 0; t < n_trials; ++t) {
    weighted_sum += static_cast<double>(trial_sizes_[t]) * trial_means_[t];
  }
  mean_ = n_trials == 1 ? trial_means_[0] : weighted_sum / static_cast<double>(n_total);
  double variance = 0;  // Σ (n_t/N)² s_t²/n_t
  bool any_spread = false;
  for (size_t t = 0; t < n_trials; ++t) {
    if (std::isnan(spreads_[t])) continue;  // one sample: no spread, contributes nothing
    any_spread = true;
    const double weight = static_cast<double>(trial_sizes_[t]) / static_cast<double>(n_total);
    variance += weight * weight * spreads_[t];
  }
  mean_variance_ = any_spread ? variance : Interval::kUndefined;

  checkpoints_.clear();
  if (n_trials == 1) {  // one trial: CountsBefore is the position itself
    trial_of_.clear();
    return;
  }
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
