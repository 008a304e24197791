#include "stats/trial_jackknife.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "stats/normal.h"
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

}  // namespace

UnitInterval IntervalOf(double estimate, double variance, double floor_variance, double df,
                        size_t units, double confidence) {
  UnitInterval out;
  out.interval.estimate = estimate;
  out.units = units;
  out.floor_variance = floor_variance;
  if (!std::isfinite(variance) || !(df > 0) || !std::isfinite(estimate)) return out;
  out.variance = variance;
  out.df = df;
  const double floor = std::isfinite(floor_variance) ? std::max(0.0, floor_variance) : 0.0;
  // Never narrower than the connections alone imply (their variance is known from thousands
  // of samples: a normal quantile). Switching to it only when the replicates vary less than
  // their connections must covered 92.8 % for p99 over 3 blocks: the wider of the two.
  const double half =
      std::max(StudentTQuantileDf(confidence, df) * std::sqrt(std::max(0.0, variance)),
               NormalQuantile(0.5 + confidence / 2) * std::sqrt(floor));
  out.interval.lo = estimate - half;
  out.interval.hi = estimate + half;
  return out;
}

double ConnectionVariance(const PooledSamples& s, Statistic statistic) {
  if (s.size() < 2) return kNaN;
  if (statistic == Statistic::kMean) return s.StratifiedMeanVariance();
  const double q = StatisticQuantile(statistic);
  const double n = static_cast<double>(s.size());
  const double z = NormalQuantile(0.975);
  const double m = z * std::sqrt(n * q * (1 - q));
  const double k = q * (n - 1);
  auto lo = static_cast<size_t>(std::max(0.0, std::floor(k - m)));
  auto hi = static_cast<size_t>(std::min(n - 1, std::ceil(k + m)));
  // Ties across the whole span (values recorded to a resolution): the quantile could lie
  // anywhere up to the nearest different values, so the span reaches them.
  const std::span<const double> x = s.sorted();
  while (x[hi] == x[lo] && (lo > 0 || hi + 1 < x.size())) {
    if (lo > 0) --lo;
    if (hi + 1 < x.size()) ++hi;
  }
  const double se = (x[hi] - x[lo]) / (2 * z);
  // Stratified, as for the mean: connections vary within their trials, not across them. Each
  // trial t holds a share p_t of its samples below the quantile; its binomial variance is
  // n_t·p_t(1 − p_t), at most N·q(1 − q) in all (a trial effect only lowers it).
  std::vector<size_t> below(s.trial_count());
  s.CountsBefore(static_cast<size_t>(std::floor(k)) + 1, below);
  double strata = 0;
  for (size_t t = 0; t < below.size(); ++t) {
    const double nt = static_cast<double>(s.trial_sizes()[t]);
    const double pt = static_cast<double>(below[t]) / nt;
    strata += nt * pt * (1 - pt);
  }
  const double share = std::min(1.0, strata / (n * q * (1 - q)));
  return se * se * share;
}

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
  return IntervalOf(estimate, JackknifeVariance(values), ConnectionVariance(samples, statistic),
                    static_cast<double>(loo.size() - 1), loo.size(), options.confidence);
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
  return IntervalOf(estimate, JackknifeVariance(values),
                    ConnectionVariance(a, statistic) + ConnectionVariance(b, statistic),
                    static_cast<double>(all.size() - 1), all.size(), options.confidence);
}

UnitInterval IndependentDifference(const UnitInterval& a, const UnitInterval& b,
                                   double confidence) {
  const double estimate = b.interval.estimate - a.interval.estimate;
  const double va = a.variance, vb = b.variance;
  if (!std::isfinite(va) || !std::isfinite(vb) || !(a.df > 0) || !(b.df > 0)) {
    UnitInterval out;
    out.interval.estimate = estimate;
    out.units = std::min(a.units, b.units);
    return out;
  }
  const double v = va + vb;
  // Welch–Satterthwaite (real, not rounded: t_{1.9} is 4.6, t_1 12.7); two exactly equal
  // estimates (zero variance on both sides) keep the smaller side's degrees of freedom instead
  // of dividing 0 by 0 — the floor then gives the width.
  const double denom = va * va / a.df + vb * vb / b.df;
  const double df = denom > 0 ? v * v / denom : std::min(a.df, b.df);
  const double floor = (std::isfinite(a.floor_variance) ? a.floor_variance : 0.0) +
                       (std::isfinite(b.floor_variance) ? b.floor_variance : 0.0);
  return IntervalOf(estimate, v, floor, df, std::min(a.units, b.units), confidence);
}

}  // namespace pqc
