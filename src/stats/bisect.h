// Inverting a monotone function: the quantile functions invert their CDFs this way (normal,
// Student's t), where a closed form is either missing or less accurate in the tails.
#pragma once

#include <cmath>
#include <limits>

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

// NewtonIncreasing: the same root, by Newton's method from x (inside [lo, hi]) with f's
// derivative `slope`, safeguarded: every evaluation narrows the bracket, and a step that would
// leave it (a flat slope, a wild start) halves it instead. Near the root each step doubles the
// correct digits, so a quantile takes about 5 evaluations of its CDF where bisection from a
// wide bracket takes about 80 (the simulations ask for thousands). Stops when a step moves x
// by less than a few units in its last place, or after 200 evaluations.
template <typename Increasing, typename Slope>
double NewtonIncreasing(double target, double lo, double hi, double x, Increasing f, Slope slope) {
  constexpr double kEps = std::numeric_limits<double>::epsilon();
  for (int i = 0; i < 200; ++i) {
    const double gap = f(x) - target;
    if (gap == 0) return x;
    if (gap < 0) {
      lo = x;
    } else {
      hi = x;
    }
    // (a zero slope gives an infinite step, a NaN one a NaN: both fail the bracket's test)
    double next = x - gap / slope(x);
    if (!(next > lo && next < hi)) next = lo + (hi - lo) / 2;
    if (std::fabs(next - x) <= 4 * kEps * std::fabs(x) || next <= lo || next >= hi) return next;
    x = next;
  }
  return x;
}

}  // namespace pqc
