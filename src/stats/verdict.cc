#include "stats/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pqc {

Verdict MakeVerdict(const Interval& difference_us) {
  const double estimate = difference_us.estimate / 1000.0;
  const double lo = difference_us.lo / 1000.0;
  const double hi = difference_us.hi / 1000.0;
  Verdict verdict;
  if (std::isnan(estimate) || std::isnan(lo) || std::isnan(hi)) {
    verdict.text = "not enough samples for a confidence interval";
    return verdict;
  }
  if (lo > 0 || hi < 0) {
    verdict.detectable = true;
    verdict.sign = lo > 0 ? 1 : -1;
    verdict.text = fmt::format("{:+.3f} ms [{:.3f}, {:.3f}]", estimate, lo, hi);
    return verdict;
  }
  verdict.text = fmt::format("no difference detectable above ±{:.3f} ms",
                             std::max(std::abs(lo), std::abs(hi)));
  return verdict;
}

}  // namespace pqc
