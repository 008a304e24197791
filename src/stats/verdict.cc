#include "stats/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pqc {

Verdict MakeVerdict(const Interval& difference_us, VerdictUnit unit) {
  const bool ms = unit == VerdictUnit::kMilliseconds;
  const double scale = ms ? 1000.0 : 1.0;
  const double estimate = difference_us.estimate / scale;
  const double lo = difference_us.lo / scale;
  const double hi = difference_us.hi / scale;
  Verdict verdict;
  if (std::isnan(estimate) || std::isnan(lo) || std::isnan(hi)) {
    verdict.text = "not enough samples for a confidence interval";
    return verdict;
  }
  if (lo > 0 || hi < 0) {
    verdict.detectable = true;
    verdict.sign = lo > 0 ? 1 : -1;
    verdict.text = ms ? fmt::format("{:+.3f} ms [{:.3f}, {:.3f}]", estimate, lo, hi)
                      : fmt::format("{:+.1f} µs [{:.1f}, {:.1f}]", estimate, lo, hi);
    return verdict;
  }
  const double bound = std::max(std::abs(lo), std::abs(hi));
  verdict.text = ms ? fmt::format("no difference detectable above ±{:.3f} ms", bound)
                    : fmt::format("no difference detectable above ±{:.1f} µs", bound);
  return verdict;
}

}  // namespace pqc
