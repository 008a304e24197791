// The quantile functions invert their CDFs by safeguarded Newton steps (stats/bisect.h); the
// reference here is plain bisection of the same CDFs over a wide bracket, which needs no start
// and no slope: the two must agree wherever the tool asks for a quantile, and in the tails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "stats/bisect.h"
#include "stats/normal.h"
#include "stats/student_t.h"

namespace pqc {
namespace {

constexpr double kConfidences[] = {0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.999, 0.999999};

TEST(Quantiles, RealDfTAgreesWithBisection) {
  // Welch–Satterthwaite and the stopping rule's df: fractions, from below 1 to near-normal.
  for (double df : {0.6, 1.0, 1.37, 1.9, 2.0, 2.5, 3.2, 4.0, 5.5, 9.4, 17.0, 30.0, 61.3, 120.0, 1e3,
                    1e5, 1e7}) {
    for (double c : kConfidences) {
      if (df < 1 && c > 0.999) continue;  // beyond the bracket's 1e9
      const double want =
          BisectIncreasing(c, 0.0, 1e9, [df](double t) { return StudentTCentralDf(t, df); });
      EXPECT_NEAR(StudentTQuantileDf(c, df), want, 1e-10 * want) << "df " << df << ", " << c;
    }
  }
}

TEST(Quantiles, IntegerDfTAgreesWithBisection) {
  for (int df = 1; df <= 40; ++df) {
    for (double c : kConfidences) {
      const double want =
          BisectIncreasing(c, 0.0, 1e9, [df](double t) { return StudentTCentral(t, df); });
      EXPECT_NEAR(StudentTQuantile(c, df), want, 1e-10 * want) << "df " << df << ", " << c;
    }
  }
  // The tables' values, as a check on the reference itself.
  EXPECT_NEAR(StudentTQuantile(0.95, 2), 4.302653, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.99, 10), 3.169273, 1e-6);
  EXPECT_NEAR(StudentTQuantileDf(0.95, 1), 12.706205, 1e-6);
}

TEST(Quantiles, NormalAgreesWithBisectionIntoTheTails) {
  for (double p : {1e-300, 1e-100, 1e-12, 1e-6, 1e-3, 0.025, 0.2, 0.5, 0.7, 0.975, 0.999, 1 - 1e-9,
                   1 - 1e-15}) {
    const double want = BisectIncreasing(p, -40.0, 40.0, NormalCdf);
    // Near p = 1 the CDF's own rounding (1e-16 absolute against a density of 1e-14 at 8σ)
    // leaves x uncertain by about that ratio; both methods land within it. (Below 0.5 Φ is
    // exact to its last bits, erfc being relative.)
    const double density = std::exp(-want * want / 2) / std::sqrt(2 * M_PI);
    const double tolerance =
        1e-10 * std::max(1.0, std::fabs(want)) + (want > 0 ? 4e-16 / density : 0.0);
    EXPECT_NEAR(NormalQuantile(p), want, tolerance) << p;
  }
  EXPECT_NEAR(NormalQuantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-15);
  EXPECT_TRUE(std::isinf(NormalQuantile(1.0)));
}

}  // namespace
}  // namespace pqc
