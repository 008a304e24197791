#include "stats/ratio_jackknife.h"

#include <cmath>
#include <set>
#include <vector>

namespace pqc {
namespace {

struct Mean {
  double sum = 0, n = 0;
  double value() const { return n > 0 ? sum / n : NAN; }
};

Mean MeanWithout(std::span<const BlockValue> values, const uint64_t* drop) {
  Mean m;
  for (const BlockValue& v : values) {
    if (!std::isfinite(v.value) || (drop != nullptr && v.block == *drop)) continue;
    m.sum += v.value;
    m.n += 1;
  }
  return m;
}

std::set<uint64_t> BlocksOf(std::span<const BlockValue> values) {
  std::set<uint64_t> out;
  for (const BlockValue& v : values) {
    if (std::isfinite(v.value)) out.insert(v.block);
  }
  return out;
}

}  // namespace

UnitInterval RatioOfMeans(std::span<const BlockValue> base, std::span<const BlockValue> arm,
                          double floor_variance, double confidence) {
  const Mean mb = MeanWithout(base, nullptr), ma = MeanWithout(arm, nullptr);
  const double estimate = mb.value() > 0 ? ma.value() / mb.value() : NAN;
  const std::set<uint64_t> blocks_b = BlocksOf(base), blocks_a = BlocksOf(arm);
  std::set<uint64_t> all = blocks_b;
  all.insert(blocks_a.begin(), blocks_a.end());
  if (!std::isfinite(estimate) || blocks_b.size() < 2 || blocks_a.size() < 2) {
    return IntervalOf(estimate, NAN, NAN, NAN, all.size(), confidence);
  }
  std::vector<double> without;
  for (uint64_t block : all) {
    const double b = MeanWithout(base, &block).value();
    without.push_back(b > 0 ? MeanWithout(arm, &block).value() / b : NAN);
  }
  // Delta method: var(ā/b̄) ≈ r² (var ā / ā² + var b̄ / b̄²), each mean's from the floor alone.
  const double f = std::max(0.0, floor_variance);
  const double floor =
      estimate * estimate *
      (f / ma.n / (ma.value() * ma.value()) + f / mb.n / (mb.value() * mb.value()));
  return IntervalOf(estimate, JackknifeVariance(without), floor,
                    static_cast<double>(all.size() - 1), all.size(), confidence);
}

}  // namespace pqc
