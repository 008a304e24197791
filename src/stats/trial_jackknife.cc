#include "stats/trial_jackknife.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "stats/student_t.h"

namespace pqc {
namespace {

constexpr double kNaN = Interval::kUndefined;

// RemainingCountBefore: how many samples of the trials not dropped lie in sorted()[0, position).
size_t RemainingCountBefore(const PooledSamples& s, std::span<const uint8_t> drop, size_t position,
                            std::vector<size_t>& scratch) {
  s.CountsBefore(position, scratch);
  size_t dropped = 0;
  for (size_t t = 0; t < scratch.size(); ++t) {
    if (drop[t]) dropped += scratch[t];
  }
  return position - dropped;
}

// RemainingOrderStatistic: the value of rank `rank` (0-based) among the samples not dropped:
// the smallest position p whose prefix [0, p] holds rank + 1 of them.
double RemainingOrderStatistic(const PooledSamples& s, std::span<const uint8_t> drop, size_t rank,
                               std::vector<size_t>& scratch) {
  size_t lo = 0;
  size_t hi = s.size() - 1;  // invariant: the answer lies in [lo, hi]
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (RemainingCountBefore(s, drop, mid + 1, scratch) >= rank + 1) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return s.sorted()[lo];
}

bool PercentileIntervalDefined(size_t n, Statistic statistic, double min_tail) {
  if (statistic == Statistic::kMean) return n >= 2;
  const double q = StatisticQuantile(statistic);
  return static_cast<double>(n) * std::min(q, 1 - q) >= min_tail;
}

bool ValidOptions(const UnitOptions& o) {
  return o.confidence > 0 && o.confidence < 1 && o.min_tail >= 0;
}

// DropMasks: for each distinct unit among the non-empty trials, which trials it holds.
std::map<uint64_t, std::vector<uint8_t>> DropMasks(const PooledSamples& s, Units units) {
  std::map<uint64_t, std::vector<uint8_t>> out;
  for (size_t t = 0; t < s.trial_count(); ++t) {
    std::vector<uint8_t>& mask = out[units[s.input_index(t)]];
    mask.resize(s.trial_count(), 0);
    mask[t] = 1;
  }
  return out;
}

// Estimate: the statistic of every sample.
double Estimate(const PooledSamples& s, Statistic statistic) {
  if (statistic == Statistic::kMean) return s.mean();
  return StatisticOf(s.sorted(), statistic);
}

UnitInterval FromVariance(double estimate, double variance, double df, size_t units,
                          double confidence) {
  UnitInterval out;
  out.interval.estimate = estimate;
  out.units = units;
  if (!std::isfinite(variance) || !(df >= 1) || !std::isfinite(estimate)) return out;
  out.variance = variance;
  out.df = df;
  const double half =
      StudentTQuantile(confidence, static_cast<int>(std::floor(df))) * std::sqrt(variance);
  out.interval.lo = estimate - half;
  out.interval.hi = estimate + half;
  return out;
}

}  // namespace

double StatisticWithout(const PooledSamples& s, std::span<const uint8_t> drop,
                        Statistic statistic) {
  size_t remaining = 0;
  double sum = 0;
  for (size_t t = 0; t < s.trial_count(); ++t) {
    if (drop[t]) continue;
    remaining += s.trial_sizes()[t];
    sum += s.trial_mean(t) * static_cast<double>(s.trial_sizes()[t]);
  }
  if (remaining == 0) return kNaN;
  if (statistic == Statistic::kMean) return sum / static_cast<double>(remaining);
  // Type-7 percentile of the remaining samples (percentiles.h): ranks ⌊h⌋ and ⌊h⌋ + 1.
  const double h = StatisticQuantile(statistic) * static_cast<double>(remaining - 1);
  const auto rank = static_cast<size_t>(std::floor(h));
  std::vector<size_t> scratch(s.trial_count());
  const double below = RemainingOrderStatistic(s, drop, rank, scratch);
  if (rank + 1 >= remaining) return below;
  const double above = RemainingOrderStatistic(s, drop, rank + 1, scratch);
  return below + (h - static_cast<double>(rank)) * (above - below);
}

std::vector<UnitValue> LeaveOneUnitOut(const PooledSamples& samples, Units units,
                                       Statistic statistic) {
  std::vector<UnitValue> out;
  for (const auto& [unit, mask] : DropMasks(samples, units)) {
    out.push_back({unit, StatisticWithout(samples, mask, statistic)});
  }
  return out;
}

double JackknifeVariance(std::span<const double> leave_one_out) {
  double mean = 0;
  double n = 0;
  for (double v : leave_one_out) {
    if (std::isnan(v)) continue;
    n += 1;
    mean += (v - mean) / n;
  }
  if (n < 2) return kNaN;
  double ss = 0;
  for (double v : leave_one_out) {
    if (!std::isnan(v)) ss += (v - mean) * (v - mean);
  }
  return (n - 1) / n * ss;
}

UnitInterval TrialInterval(const PooledSamples& samples, Units units, Statistic statistic,
                           const UnitOptions& options) {
  const double estimate = Estimate(samples, statistic);
  const std::vector<UnitValue> loo = LeaveOneUnitOut(samples, units, statistic);
  if (!ValidOptions(options) || loo.size() < 2 ||
      !PercentileIntervalDefined(samples.size(), statistic, options.min_tail)) {
    UnitInterval out;
    out.interval.estimate = estimate;
    out.units = loo.size();
    return out;
  }
  std::vector<double> values;
  for (const UnitValue& u : loo) values.push_back(u.without);
  return FromVariance(estimate, JackknifeVariance(values), static_cast<double>(loo.size() - 1),
                      loo.size(), options.confidence);
}

UnitInterval PairedDifference(const PooledSamples& a, Units units_a, const PooledSamples& b,
                              Units units_b, Statistic statistic, const UnitOptions& options) {
  const double estimate = Estimate(b, statistic) - Estimate(a, statistic);
  std::map<uint64_t, std::vector<uint8_t>> masks_a = DropMasks(a, units_a);
  std::map<uint64_t, std::vector<uint8_t>> masks_b = DropMasks(b, units_b);
  std::vector<uint64_t> all;
  for (const auto& [u, m] : masks_a) all.push_back(u);
  for (const auto& [u, m] : masks_b) {
    if (masks_a.count(u) == 0) all.push_back(u);
  }
  // Each arm must vary over units of its own: an arm measured in one block contributes no
  // variance to the jackknife and would make the interval look as precise as the other arm.
  if (!ValidOptions(options) || masks_a.size() < 2 || masks_b.size() < 2 ||
      !PercentileIntervalDefined(a.size(), statistic, options.min_tail) ||
      !PercentileIntervalDefined(b.size(), statistic, options.min_tail)) {
    UnitInterval out;
    out.interval.estimate = estimate;
    out.units = all.size();
    return out;
  }
  const double whole_a = Estimate(a, statistic), whole_b = Estimate(b, statistic);
  auto without = [statistic](const PooledSamples& s, const std::vector<uint8_t>& mask) {
    return StatisticWithout(s, mask, statistic);
  };
  std::vector<double> values;
  for (uint64_t u : all) {
    const auto ia = masks_a.find(u);
    const auto ib = masks_b.find(u);
    const double va = ia == masks_a.end() ? whole_a : without(a, ia->second);
    const double vb = ib == masks_b.end() ? whole_b : without(b, ib->second);
    values.push_back(vb - va);
  }
  return FromVariance(estimate, JackknifeVariance(values), static_cast<double>(all.size() - 1),
                      all.size(), options.confidence);
}

UnitInterval IndependentDifference(const UnitInterval& a, const UnitInterval& b,
                                   double confidence) {
  const double estimate = b.interval.estimate - a.interval.estimate;
  const double va = a.variance, vb = b.variance;
  if (!std::isfinite(va) || !std::isfinite(vb) || !(a.df >= 1) || !(b.df >= 1)) {
    UnitInterval out;
    out.interval.estimate = estimate;
    out.units = std::min(a.units, b.units);
    return out;
  }
  const double v = va + vb;
  // Welch–Satterthwaite; two exactly equal estimates (zero variance on both sides) keep the
  // smaller side's degrees of freedom instead of dividing 0 by 0.
  const double denom = va * va / a.df + vb * vb / b.df;
  const double df = denom > 0 ? std::max(1.0, v * v / denom) : std::min(a.df, b.df);
  return FromVariance(estimate, v, df, std::min(a.units, b.units), confidence);
}

}  // namespace pqc
