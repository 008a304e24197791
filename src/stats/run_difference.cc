#include "stats/run_difference.h"

#include <cmath>

namespace pqc {
namespace {

// SideParts: one side's runs R, the sum of squares of its runs' estimates about their mean, and
// its pooled estimate's floor (the mean of its runs' floors over R: connections of R runs).
struct SideParts {
  double runs = 0;
  double squares = 0;
  double floor = 0;
};

SideParts PartsOf(std::span<const UnitInterval> runs) {
  SideParts p;
  p.runs = static_cast<double>(runs.size());
  double mean = 0;
  for (const UnitInterval& r : runs) mean += r.interval.estimate / p.runs;
  for (const UnitInterval& r : runs) {
    p.squares += (r.interval.estimate - mean) * (r.interval.estimate - mean);
    if (std::isfinite(r.floor_variance)) p.floor += r.floor_variance / p.runs / p.runs;
  }
  return p;
}

bool AllFinite(std::span<const UnitInterval> runs) {
  for (const UnitInterval& r : runs) {
    if (!std::isfinite(r.interval.estimate)) return false;
  }
  return true;
}

}  // namespace

RunsInterval RunsDifference(double estimate_a, std::span<const UnitInterval> a_runs,
                            double estimate_b, std::span<const UnitInterval> b_runs,
                            double confidence) {
  RunsInterval out;
  const double estimate = estimate_b - estimate_a;
  out.difference.interval.estimate = estimate;
  out.difference.units = std::min(a_runs.size(), b_runs.size());
  if (a_runs.empty() || b_runs.empty() || !std::isfinite(estimate) || !AllFinite(a_runs) ||
      !AllFinite(b_runs)) {
    return out;
  }
  if (a_runs.size() == 1 && b_runs.size() == 1) {
    // Nothing measures the drift between the two runs: each run's trials, Welch.
    out.difference = IndependentDifference(a_runs[0], b_runs[0], confidence);
    out.difference.interval.estimate = estimate;
    if (std::isfinite(out.difference.interval.lo)) {
      const double half = out.difference.interval.hi - out.difference.interval.lo;
      out.difference.interval.lo = estimate - half / 2;
      out.difference.interval.hi = estimate + half / 2;
    }
    return out;
  }
  const SideParts a = PartsOf(a_runs), b = PartsOf(b_runs);
  const double df = (a.runs - 1) + (b.runs - 1);
  const double mean_square = (a.squares + b.squares) / df;
  const double v = mean_square * (1 / a.runs + 1 / b.runs);
  out.drift_in_interval = true;
  out.difference = IntervalOf(estimate, v, a.floor + b.floor, df, out.difference.units, confidence);
  return out;
}

UnitInterval RunOfValues(std::span<const double> values, double floor_variance, double confidence) {
  double sum = 0, n = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    sum += v;
    n += 1;
  }
  const double mean = n > 0 ? sum / n : NAN;
  const auto units = static_cast<size_t>(n);
  if (n < 2) return IntervalOf(mean, NAN, NAN, NAN, units, confidence);
  double ss = 0;
  for (double v : values) {
    if (!std::isnan(v)) ss += (v - mean) * (v - mean);
  }
  return IntervalOf(mean, ss / (n - 1) / n, floor_variance / n, n - 1, units, confidence);
}

}  // namespace pqc
