#include "stats/block_differences.h"

#include <cmath>
#include <map>
#include <utility>

#include "stats/trial_spread.h"

namespace pqc {
namespace {

// PerBlock: each block's mean of its trials' statistic (trials without a value skipped).
std::map<uint64_t, double> PerBlock(const PooledSamples& s, Units units, Statistic statistic) {
  const TrialSpread spread = SpreadBetweenTrials(s, statistic);
  std::map<uint64_t, std::pair<double, int>> sums;
  for (size_t i = 0; i < spread.per_trial.size(); ++i) {
    if (std::isnan(spread.per_trial[i])) continue;
    auto& [sum, count] = sums[units[i]];
    sum += spread.per_trial[i];
    ++count;
  }
  std::map<uint64_t, double> out;
  for (const auto& [block, sc] : sums) out[block] = sc.first / sc.second;
  return out;
}

}  // namespace

double BlockDifferenceVariance(const PooledSamples& a, Units units_a, const PooledSamples& b,
                               Units units_b, Statistic statistic) {
  const std::map<uint64_t, double> pa = PerBlock(a, units_a, statistic);
  const std::map<uint64_t, double> pb = PerBlock(b, units_b, statistic);
  double mean = 0, m2 = 0, k = 0;
  for (const auto& [block, va] : pa) {
    const auto ib = pb.find(block);
    if (ib == pb.end()) continue;
    const double d = ib->second - va;
    k += 1;
    const double delta = d - mean;
    mean += delta / k;
    m2 += delta * (d - mean);
  }
  if (k < 2) return Interval::kUndefined;
  return m2 / (k - 1) / k;
}

}  // namespace pqc
