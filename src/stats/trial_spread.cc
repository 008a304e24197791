#include "stats/trial_spread.h"

#include <algorithm>
#include <cmath>

namespace pqc {
namespace {

void SetRange(TrialSpread& spread) {
  for (double value : spread.per_trial) {
    if (std::isnan(value)) continue;
    spread.min = std::isnan(spread.min) ? value : std::min(spread.min, value);
    spread.max = std::isnan(spread.max) ? value : std::max(spread.max, value);
  }
}

}  // namespace

TrialSpread SpreadBetweenTrials(const TrialSamples& trials, Statistic statistic) {
  TrialSpread spread;
  spread.per_trial.reserve(trials.size());
  for (const auto& trial : trials) {
    std::vector<double> sorted = trial;
    std::erase_if(sorted, [](double v) { return std::isnan(v); });
    std::sort(sorted.begin(), sorted.end());
    spread.per_trial.push_back(StatisticOf(sorted, statistic));
  }
  SetRange(spread);
  return spread;
}

TrialSpread SpreadBetweenTrials(const PooledSamples& pooled, Statistic statistic) {
  TrialSpread spread;
  spread.per_trial.assign(pooled.input_trial_count(), Interval::kUndefined);
  const size_t n_trials = pooled.trial_count();
  if (statistic == Statistic::kMean) {
    for (size_t t = 0; t < n_trials; ++t) {
      spread.per_trial[pooled.input_index(t)] = pooled.trial_mean(t);
    }
    SetRange(spread);
    return spread;
  }
  const double q = StatisticQuantile(statistic);
  if (std::isnan(q)) return spread;
  // Type 7 within trial t: ranks k_t = ⌊(n_t − 1)q⌋ and k_t + 1, weight f_t. Walking the
  // pooled order, the j-th value met of trial t is that trial's order statistic of rank j.
  std::vector<size_t> rank(n_trials);
  std::vector<double> fraction(n_trials);
  std::vector<double> lower(n_trials, Interval::kUndefined);
  std::vector<double> upper(n_trials, Interval::kUndefined);
  std::vector<size_t> seen(n_trials, 0);
  for (size_t t = 0; t < n_trials; ++t) {
    const double h = static_cast<double>(pooled.trial_sizes()[t] - 1) * q;
    rank[t] = static_cast<size_t>(std::floor(h));
    fraction[t] = h - std::floor(h);
  }
  const auto sorted = pooled.sorted();
  for (size_t i = 0; i < sorted.size(); ++i) {
    const size_t t = pooled.TrialAt(i);
    const size_t j = seen[t]++;
    if (j == rank[t]) lower[t] = sorted[i];
    if (j == rank[t] + 1) upper[t] = sorted[i];
  }
  for (size_t t = 0; t < n_trials; ++t) {
    // As Percentile: a + f·(b − a), and just a at the top rank or without interpolation.
    const double value = std::isnan(upper[t]) || fraction[t] == 0
                             ? lower[t]
                             : lower[t] + fraction[t] * (upper[t] - lower[t]);
    spread.per_trial[pooled.input_index(t)] = value;
  }
  SetRange(spread);
  return spread;
}

}  // namespace pqc
