#include "stats/outlier_trials.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stats/percentiles.h"

namespace pqc {
namespace {

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return Percentile(values, 0.5);
}

// Versus: "39000 is 19.5× " when the reference is positive (latencies), else "39000 vs ".
std::string Versus(double value, double reference) {
  if (!(reference > 0)) return fmt::format("{:.6g} vs", value);
  return fmt::format("{:.6g} is {:.3g}×", value, value / reference);
}

}  // namespace

std::vector<OutlierTrial> FindOutlierTrials(const TrialSpread& spread, Statistic statistic,
                                            const OutlierOptions& options) {
  std::vector<OutlierTrial> flagged;
  const auto& values = spread.per_trial;
  std::vector<size_t> defined;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isnan(values[i])) defined.push_back(i);
  }
  const std::string_view name = StatisticName(statistic);
  if (defined.size() == 2) {
    const double a = values[defined[0]];
    const double b = values[defined[1]];
    const double gap = std::abs(a - b);
    if (gap > options.relative * std::min(std::abs(a), std::abs(b))) {
      for (size_t k = 0; k < 2; ++k) {
        const double value = values[defined[k]];
        const double other = values[defined[1 - k]];
        flagged.push_back(
            {defined[k], value, other,
             fmt::format("{} {} the other trial's {:.6g}: the two trials disagree by more "
                         "than {:.0f} % and neither can be called the outlier",
                         name, Versus(value, other), other, 100 * options.relative)});
      }
    }
    return flagged;
  }
  if (defined.size() < 3) return flagged;
  std::vector<double> others;
  std::vector<double> deviations;
  for (size_t i : defined) {
    others.clear();
    for (size_t j : defined) {
      if (j != i) others.push_back(values[j]);
    }
    const double median = Median(others);
    deviations.clear();
    for (double v : others) deviations.push_back(std::abs(v - median));
    const double scaled_mad = 1.4826 * Median(deviations);
    const double deviation = std::abs(values[i] - median);
    if (deviation > options.mad_factor * scaled_mad &&
        deviation > options.relative * std::abs(median)) {
      flagged.push_back(
          {i, values[i], median,
           fmt::format("{} {} the median {:.6g} of the other {} trials (off by {:.6g}: more "
                       "than {:.0f} % and more than {:g} scaled MADs of {:.6g})",
                       name, Versus(values[i], median), median, others.size(), deviation,
                       100 * options.relative, options.mad_factor, scaled_mad)});
    }
  }
  return flagged;
}

std::vector<OutlierTrial> FindOutlierTrials(const TrialSamples& trials, Statistic statistic,
                                            const OutlierOptions& options) {
  return FindOutlierTrials(SpreadBetweenTrials(trials, statistic), statistic, options);
}

}  // namespace pqc
