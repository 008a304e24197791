// Statistics against distributions whose quantiles are known exactly or analytically.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "stats/percentiles.h"

namespace pqc {
namespace {

std::vector<double> OneTo(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);
  return v;
}

TEST(Percentile, Type7OnOneToHundredIsExact) {
  const std::vector<double> v = OneTo(100);
  // h = 99·q; x[h] = h + 1.
  EXPECT_DOUBLE_EQ(Percentile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.50), 50.5);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.75), 75.25);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.90), 90.1);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.95), 95.05);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.99), 99.01);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.999), 99.901);
  EXPECT_DOUBLE_EQ(Percentile(v, 1.0), 100.0);
}

TEST(Percentile, InterpolatesBetweenClosestRanks) {
  const std::vector<double> v = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(Percentile(v, 0.5), 25.0);                            // h = 1.5
  EXPECT_DOUBLE_EQ(Percentile(v, 0.25), 17.5);                           // h = 0.75
  EXPECT_DOUBLE_EQ(Percentile(v, 1.0 / 3.0), 20.0);                      // h = 1 exactly
  EXPECT_DOUBLE_EQ(Percentile(std::vector<double>{1, 2, 3}, 0.5), 2.0);  // odd n: middle
}

TEST(Percentile, ClampsQAndStaysWithinRangeAndMonotone) {
  const std::vector<double> v = {-5, -1, 0, 2, 2, 2, 9, 1e6};
  EXPECT_DOUBLE_EQ(Percentile(v, -0.5), -5.0);
  EXPECT_DOUBLE_EQ(Percentile(v, 1.5), 1e6);
  double previous = -1e300;
  for (int i = 0; i <= 1000; ++i) {
    const double p = Percentile(v, i / 1000.0);
    EXPECT_GE(p, previous);
    EXPECT_GE(p, v.front());
    EXPECT_LE(p, v.back());
    previous = p;
  }
}

TEST(Percentile, EmptyIsUndefined) {
  EXPECT_TRUE(std::isnan(Percentile(std::vector<double>{}, 0.5)));
  EXPECT_TRUE(std::isnan(Percentile(std::vector<double>{1, 2}, NAN)));
}

TEST(Summarize, OneToHundredShuffled) {
  std::vector<double> v = OneTo(100);
  std::mt19937_64 rng(42);
  std::shuffle(v.begin(), v.end(), rng);
  const PhaseStats s = Summarize(v);
  EXPECT_EQ(s.count, 100u);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 100.0);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);
  EXPECT_DOUBLE_EQ(s.p75, 75.25);
  EXPECT_DOUBLE_EQ(s.p90, 90.1);
  EXPECT_DOUBLE_EQ(s.p95, 95.05);
  EXPECT_DOUBLE_EQ(s.p99, 99.01);
  EXPECT_DOUBLE_EQ(s.p999, 99.901);
}

TEST(Summarize, EmptyIsCountZeroAndEverythingElseUndefined) {
  const PhaseStats s = Summarize({});
  EXPECT_EQ(s.count, 0u);
  for (double v : {s.min, s.mean, s.p50, s.p75, s.p90, s.p95, s.p99, s.p999, s.max}) {
    EXPECT_TRUE(std::isnan(v));
  }
}

TEST(Summarize, SingleValueIsEveryStatistic) {
  const PhaseStats s = Summarize({123.456});
  EXPECT_EQ(s.count, 1u);
  for (double v : {s.min, s.mean, s.p50, s.p75, s.p90, s.p95, s.p99, s.p999, s.max}) {
    EXPECT_EQ(v, 123.456);
  }
}

TEST(Summarize, ConstantInputIsExact) {
  // 0.1 is not representable; a sum / n mean would drift, the running mean does not.
  const PhaseStats s = Summarize(std::vector<double>(1001, 0.1));
  EXPECT_EQ(s.count, 1001u);
  for (double v : {s.min, s.mean, s.p50, s.p75, s.p90, s.p95, s.p99, s.p999, s.max}) {
    EXPECT_EQ(v, 0.1);
  }
}

// Sampling tolerance of the q-quantile estimate: its standard error is
// sqrt(q(1 − q)/n) / f(x_q) for density f; allow 6 standard errors (no flaky failures: the
// generator is seeded, and a correct estimator is far inside this).
double Tolerance(double q, size_t n, double density) {
  return 6.0 * std::sqrt(q * (1 - q) / static_cast<double>(n)) / density;
}

constexpr double kQs[] = {0.50, 0.75, 0.90, 0.95, 0.99, 0.999};

double Get(const PhaseStats& s, double q) {
  if (q == 0.50) return s.p50;
  if (q == 0.75) return s.p75;
  if (q == 0.90) return s.p90;
  if (q == 0.95) return s.p95;
  if (q == 0.99) return s.p99;
  return s.p999;
}

TEST(Summarize, UniformSamplesMatchAnalyticQuantiles) {
  // Uniform on [100, 300) µs: x_q = 100 + 200 q, density 1/200, mean 200.
  constexpr size_t kN = 200'000;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(100.0, 300.0);
  std::vector<double> v(kN);
  for (double& x : v) x = dist(rng);
  const PhaseStats s = Summarize(v);
  EXPECT_EQ(s.count, kN);
  for (double q : kQs) {
    EXPECT_NEAR(Get(s, q), 100 + 200 * q, Tolerance(q, kN, 1.0 / 200)) << "q=" << q;
  }
  EXPECT_NEAR(s.mean, 200.0, 6 * 200 / std::sqrt(12.0 * kN));
  EXPECT_GE(s.min, 100.0);
  EXPECT_LT(s.max, 300.0);
  EXPECT_NEAR(s.min, 100.0, 0.1);
  EXPECT_NEAR(s.max, 300.0, 0.1);
}

TEST(Summarize, ExponentialSamplesMatchAnalyticQuantiles) {
  // Exponential with mean 250 µs (a long tail like real latencies): x_q = −250 ln(1 − q),
  // density at x_q = (1 − q) / 250.
  constexpr size_t kN = 200'000;
  constexpr double kMean = 250.0;
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> dist(1.0 / kMean);
  std::vector<double> v(kN);
  for (double& x : v) x = dist(rng);
  const PhaseStats s = Summarize(v);
  for (double q : kQs) {
    const double expected = -kMean * std::log(1 - q);
    EXPECT_NEAR(Get(s, q), expected, Tolerance(q, kN, (1 - q) / kMean)) << "q=" << q;
  }
  EXPECT_NEAR(s.mean, kMean, 6 * kMean / std::sqrt(static_cast<double>(kN)));
  EXPECT_GE(s.min, 0.0);
  EXPECT_LE(s.p50, s.p75);
  EXPECT_LE(s.p99, s.p999);
  EXPECT_LE(s.p999, s.max);
}

}  // namespace
}  // namespace pqc
