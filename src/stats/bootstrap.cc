#include "stats/bootstrap.h"

#include <algorithm>
#include <cmath>

#include "stats/normal.h"
#include "stats/order_statistic_resampler.h"
#include "stats/percentiles.h"

namespace pqc {
namespace {

bool ValidOptions(const BootstrapOptions& options) {
  return options.resamples >= 1 && options.resamples <= BootstrapOptions::kMaxResamples &&
         options.confidence > 0 && options.confidence < 1 && options.min_tail >= 0;
}

// IntervalDefined: whether `samples` support an interval of `statistic` (see bootstrap.h).
bool IntervalDefined(const PooledSamples& samples, Statistic statistic,
                     const BootstrapOptions& options) {
  const size_t n = samples.size();
  if (n < 2 || !ValidOptions(options)) return false;
  if (statistic == Statistic::kMean) return !std::isnan(samples.StratifiedMeanVariance());
  const double q = StatisticQuantile(statistic);
  return static_cast<double>(n) * std::min(q, 1 - q) >= options.min_tail;
}

double PointEstimate(const PooledSamples& samples, Statistic statistic) {
  if (statistic == Statistic::kMean) return samples.mean();
  return StatisticOf(samples.sorted(), statistic);
}

// PercentileInterval: the (α/2, 1 − α/2) quantiles of `replicates` (sorted here).
void PercentileInterval(std::vector<double>& replicates, double confidence, Interval& out) {
  std::sort(replicates.begin(), replicates.end());
  const double alpha = 1 - confidence;
  out.lo = Percentile(replicates, alpha / 2);
  out.hi = Percentile(replicates, 1 - alpha / 2);
}

double NormalZ(double confidence) {
  return NormalQuantile(0.5 + confidence / 2);
}

}  // namespace

std::vector<double> PercentileReplicates(const PooledSamples& samples, double q, int resamples,
                                         std::mt19937_64& rng) {
  std::vector<double> replicates;
  if (samples.size() == 0 || std::isnan(q) || resamples <= 0 ||
      resamples > BootstrapOptions::kMaxResamples) {
    return replicates;
  }
  replicates.reserve(static_cast<size_t>(resamples));
  OrderStatisticResampler resampler(samples);
  for (int i = 0; i < resamples; ++i) replicates.push_back(resampler.ResampledPercentile(q, rng));
  return replicates;
}

Interval StatisticInterval(const PooledSamples& samples, Statistic statistic,
                           const BootstrapOptions& options) {
  Interval out;
  out.estimate = PointEstimate(samples, statistic);
  if (!IntervalDefined(samples, statistic, options)) return out;
  if (statistic == Statistic::kMean) {
    const double half = NormalZ(options.confidence) * std::sqrt(samples.StratifiedMeanVariance());
    out.lo = out.estimate - half;
    out.hi = out.estimate + half;
    return out;
  }
  std::mt19937_64 rng(options.seed);
  std::vector<double> replicates =
      PercentileReplicates(samples, StatisticQuantile(statistic), options.resamples, rng);
  PercentileInterval(replicates, options.confidence, out);
  return out;
}

double StratifiedVariance(const PooledSamples& samples, Statistic statistic,
                          const BootstrapOptions& options) {
  if (!IntervalDefined(samples, statistic, options)) return NAN;
  if (statistic == Statistic::kMean) return samples.StratifiedMeanVariance();
  std::mt19937_64 rng(options.seed);
  const std::vector<double> replicates =
      PercentileReplicates(samples, StatisticQuantile(statistic), options.resamples, rng);
  if (replicates.size() < 2) return NAN;
  double mean = 0, n = 0, ss = 0;
  for (double v : replicates) {
    n += 1;
    const double delta = v - mean;
    mean += delta / n;
    ss += delta * (v - mean);
  }
  return ss / (n - 1);
}

Interval StatisticInterval(const TrialSamples& trials, Statistic statistic,
                           const BootstrapOptions& options) {
  return StatisticInterval(PooledSamples(trials), statistic, options);
}

Interval DifferenceInterval(const PooledSamples& a, const PooledSamples& b, Statistic statistic,
                            const BootstrapOptions& options) {
  Interval out;
  out.estimate = PointEstimate(b, statistic) - PointEstimate(a, statistic);
  if (!IntervalDefined(a, statistic, options) || !IntervalDefined(b, statistic, options)) {
    return out;
  }
  if (statistic == Statistic::kMean) {
    const double half = NormalZ(options.confidence) *
                        std::sqrt(a.StratifiedMeanVariance() + b.StratifiedMeanVariance());
    out.lo = out.estimate - half;
    out.hi = out.estimate + half;
    return out;
  }
  // One generator, a's replicates first, then b's: independent streams, reproducible.
  std::mt19937_64 rng(options.seed);
  const double q = StatisticQuantile(statistic);
  std::vector<double> replicates = PercentileReplicates(a, q, options.resamples, rng);
  const std::vector<double> of_b = PercentileReplicates(b, q, options.resamples, rng);
  for (size_t i = 0; i < replicates.size(); ++i) replicates[i] = of_b[i] - replicates[i];
  PercentileInterval(replicates, options.confidence, out);
  return out;
}

Interval DifferenceInterval(const TrialSamples& a, const TrialSamples& b, Statistic statistic,
                            const BootstrapOptions& options) {
  return DifferenceInterval(PooledSamples(a), PooledSamples(b), statistic, options);
}

}  // namespace pqc
