#include "stats/normal.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/bisect.h"

namespace pqc {

double NormalCdf(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double NormalQuantile(double p) {
  if (!(p >= 0.0 && p <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  // Φ(±40) is 0 and 1 in double precision beyond any p that reaches here, so the root lies
  // in [−40, 40]. Newton's steps (slope: the density φ) from Abramowitz & Stegun's rational
  // approximation 26.2.23 (within 4.5e-4): two or three evaluations of Φ, not about 80.
  const double tail = std::min(p, 1 - p);
  const double u = std::sqrt(-2 * std::log(tail));
  const double x = u - (2.515517 + (0.802853 + 0.010328 * u) * u) /
                           (1 + (1.432788 + (0.189269 + 0.001308 * u) * u) * u);
  const double start = std::clamp(p < 0.5 ? -x : x, -40.0, 40.0);
  const auto density = [](double z) { return std::exp(-z * z / 2) / std::sqrt(2 * M_PI); };
  return NewtonIncreasing(p, -40.0, 40.0, start, NormalCdf, density);
}

}  // namespace pqc
