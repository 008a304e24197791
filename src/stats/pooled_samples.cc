#include "stats/pooled_samples.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace pqc {

PooledSamples::PooledSamples(const TrialSamples& trials) {
  std::vector<std::pair<double, uint32_t>> tagged;
  size_t total = 0;
  for (const auto& trial : trials) total += trial.size();
  tagged.reserve(total);
  double weighted_sum = 0;  // Σ n_t·mean_t, each mean computed stably below
  std::vector<std::pair<double, double>> moments;  // per trial: mean, sum of squared deviations
  for (const auto& trial : trials) {
    const auto t = static_cast<uint32_t>(trial_sizes_.size());
    size_t n = 0;
    double mean = 0;
    double m2 = 0;
    for (double v : trial) {
      if (std::isnan(v)) {
        ++skipped_nan_;
        continue;
      }
      tagged.emplace_back(v, t);
      // Welford's update: no catastrophic cancellation for latencies with a large mean.
      ++n;
      const double delta = v - mean;
      mean += delta / static_cast<double>(n);
      m2 += delta * (v - mean);
    }
    if (n == 0) continue;
    trial_sizes_.push_back(n);
    moments.emplace_back(mean, m2);
    weighted_sum += static_cast<double>(n) * mean;
  }
  std::sort(tagged.begin(), tagged.end());
  const size_t n_total = tagged.size();
  const size_t n_trials = trial_sizes_.size();
  values_.resize(n_total);
  for (size_t i = 0; i < n_total; ++i) values_[i] = tagged[i].first;
  if (n_total == 0) return;

  mean_ = n_trials == 1 ? moments[0].first : weighted_sum / static_cast<double>(n_total);
  double variance = 0;
  bool any_spread = false;
  for (size_t t = 0; t < n_trials; ++t) {
    const auto n = static_cast<double>(trial_sizes_[t]);
    if (trial_sizes_[t] < 2) continue;  // one sample: no spread, contributes nothing
    any_spread = true;
    const double s2 = moments[t].second / (n - 1);
    const double weight = n / static_cast<double>(n_total);
    variance += weight * weight * s2 / n;
  }
  if (any_spread) mean_variance_ = variance;

  if (n_trials <= 1) return;  // one trial: CountsBefore is the position itself
  trial_of_.resize(n_total);
  for (size_t i = 0; i < n_total; ++i) trial_of_[i] = tagged[i].second;
  const size_t n_checkpoints = n_total / kBlock + 1;
  checkpoints_.assign(n_checkpoints * n_trials, 0);
  std::vector<uint32_t> running(n_trials, 0);
  for (size_t b = 0; b < n_checkpoints; ++b) {
    std::copy(running.begin(), running.end(), checkpoints_.begin() + b * n_trials);
    const size_t end = std::min(n_total, (b + 1) * kBlock);
    for (size_t i = b * kBlock; i < end; ++i) ++running[trial_of_[i]];
  }
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
