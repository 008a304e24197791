// Inverting a monotone function by bisection: the quantile functions invert their CDFs this way
// (normal, Student's t), where a closed form is either missing or less accurate in the tails.
#pragma once

namespace pqc {

// BisectIncreasing: the x in [lo, hi] where the increasing function f crosses target, to the
// precision of a double. Bounded: stops when the bracket cannot shrink further, or after 200
// halvings; the caller chooses a bracket that holds the root.
template <typename Increasing>
double BisectIncreasing(double target, double lo, double hi, Increasing f) {
  for (int i = 0; i < 200; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (f(mid) < target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo + (hi - lo) / 2;
}

}  // namespace pqc
