// statistic — the vocabulary the comparison functions share: one arm's samples split by trial,
// the statistics a report compares, and an estimate with its interval. Kept apart from the
// maths so that reporters and the results store can name statistics without pulling in the
// bootstrap.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

namespace pqc {

// TrialSamples: the raw per-connection values (latencies in µs) of one arm and one phase, one
// vector per valid trial, each in any order. Raw samples, never per-trial summaries: pooled
// percentiles cannot be recovered from summaries.
using TrialSamples = std::vector<std::vector<double>>;

// Statistic: what a report compares between arms. Percentiles are type 7 (see Percentile).
enum class Statistic { kMean, kP50, kP95, kP99 };

// StatisticName: "mean", "p50", "p95", "p99" — the names used in reports and JSON.
std::string_view StatisticName(Statistic statistic);

// StatisticQuantile: q of a percentile statistic (0.50, 0.95, 0.99); NaN for kMean.
double StatisticQuantile(Statistic statistic);

// StatisticOf: the statistic of one sample. Preconditions: `sorted` ascending, no NaN.
// NaN for an empty sample (undefined, never a made-up zero).
double StatisticOf(std::span<const double> sorted, Statistic statistic);

// Interval: a point estimate and a confidence interval [lo, hi]. Any field is NaN when it is
// undefined for the input (no samples, or too few for an interval); readers test with isnan.
struct Interval {
  static constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();
  double estimate = kUndefined;
  double lo = kUndefined;
  double hi = kUndefined;
};

}  // namespace pqc
