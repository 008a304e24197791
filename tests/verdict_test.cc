// Verdict strings, golden: the text reports print for a difference between two arms.
#include "stats/verdict.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pqc {
namespace {

TEST(MakeVerdict, DetectableSlowdownAndSpeedup) {
  const Verdict slower = MakeVerdict({.estimate = 410, .lo = 360, .hi = 470});
  EXPECT_TRUE(slower.detectable);
  EXPECT_EQ(slower.sign, 1);
  EXPECT_EQ(slower.text, "+0.410 ms [0.360, 0.470]");
  const Verdict faster = MakeVerdict({.estimate = -120.4, .lo = -150.26, .hi = -89.6});
  EXPECT_TRUE(faster.detectable);
  EXPECT_EQ(faster.sign, -1);
  EXPECT_EQ(faster.text, "-0.120 ms [-0.150, -0.090]");
  EXPECT_EQ(MakeVerdict({.estimate = 12345.6789, .lo = 1.0, .hi = 30000}).text,
            "+12.346 ms [0.001, 30.000]");
}

TEST(MakeVerdict, NotDetectableStatesTheLargestDifferenceNotRuledOut) {
  // max(|lo|, |hi|), not the half-width: [−0.010, 0.090] does not rule out 0.090 ms.
  const Verdict v = MakeVerdict({.estimate = 40, .lo = -10, .hi = 90});
  EXPECT_FALSE(v.detectable);
  EXPECT_EQ(v.sign, 0);
  EXPECT_EQ(v.text, "no difference detectable above ±0.090 ms");
  EXPECT_EQ(MakeVerdict({.estimate = -3, .lo = -52, .hi = 48}).text,
            "no difference detectable above ±0.052 ms");
  // A bound exactly at zero does not exclude zero.
  EXPECT_FALSE(MakeVerdict({.estimate = 5, .lo = 0, .hi = 10}).detectable);
  EXPECT_EQ(MakeVerdict({.estimate = 0, .lo = 0, .hi = 0}).text,
            "no difference detectable above ±0.000 ms");
}

TEST(MakeVerdict, UndefinedIntervalSaysSo) {
  for (const Interval& i :
       {Interval{}, Interval{.estimate = 5}, Interval{.estimate = 5, .lo = 1, .hi = NAN}}) {
    const Verdict v = MakeVerdict(i);
    EXPECT_FALSE(v.detectable);
    EXPECT_EQ(v.sign, 0);
    EXPECT_EQ(v.text, "not enough samples for a confidence interval");
  }
}

}  // namespace
}  // namespace pqc
