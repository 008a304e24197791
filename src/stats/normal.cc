#include "stats/normal.h"

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
  // in [−40, 40].
  return BisectIncreasing(p, -40.0, 40.0, NormalCdf);
}

}  // namespace pqc
