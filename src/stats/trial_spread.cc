#include "stats/trial_spread.h"

#include <algorithm>
#include <cmath>

namespace pqc {

TrialSpread SpreadBetweenTrials(const TrialSamples& trials, Statistic statistic) {
  TrialSpread spread;
  spread.per_trial.reserve(trials.size());
  for (const auto& trial : trials) {
    std::vector<double> sorted = trial;
    std::sort(sorted.begin(), sorted.end());
    const double value = StatisticOf(sorted, statistic);
    spread.per_trial.push_back(value);
    if (std::isnan(value)) continue;
    spread.min = std::isnan(spread.min) ? value : std::min(spread.min, value);
    spread.max = std::isnan(spread.max) ? value : std::max(spread.max, value);
  }
  return spread;
}

}  // namespace pqc
