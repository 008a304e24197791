// Bootstrap intervals: the fast resampler against closed forms and brute force, coverage of
// the intervals on known distributions, differences, and inputs too small for an interval.
// Everything is seeded: the assertions are deterministic, and their bounds are set so that a
// correct method passes with a wide margin while a wrong one (e.g. an unstratified or
// mis-ranked resampler, a mis-scaled interval) fails.
#include "stats/bootstrap.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "stats/normal.h"
#include "stats/order_statistic_resampler.h"
#include "stats/percentiles.h"
#include "stats/pooled_samples.h"
#include "stats/verdict.h"

namespace pqc {
namespace {

// KolmogorovDistance: sup |F_a − F_b| between the empirical distributions of two samples.
double KolmogorovDistance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  size_t i = 0;
  size_t j = 0;
  double worst = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    const double fa = static_cast<double>(i) / static_cast<double>(a.size());
    const double fb = static_cast<double>(j) / static_cast<double>(b.size());
    worst = std::max(worst, std::abs(fa - fb));
  }
  return worst;
}

// BruteForceReplicates: the textbook bootstrap, drawing every value of every resample.
// `stratified`: n_t draws from each trial t; otherwise N draws from the pooled samples.
std::vector<double> BruteForceReplicates(const TrialSamples& trials, double q, int resamples,
                                         bool stratified, std::mt19937_64& rng) {
  std::vector<double> pooled;
  for (const auto& t : trials) pooled.insert(pooled.end(), t.begin(), t.end());
  std::vector<double> replicates;
  std::vector<double> resample;
  for (int r = 0; r < resamples; ++r) {
    resample.clear();
    if (stratified) {
      for (const auto& t : trials) {
        std::uniform_int_distribution<size_t> pick(0, t.size() - 1);
        for (size_t k = 0; k < t.size(); ++k) resample.push_back(t[pick(rng)]);
      }
    } else {
      std::uniform_int_distribution<size_t> pick(0, pooled.size() - 1);
      for (size_t k = 0; k < pooled.size(); ++k) resample.push_back(pooled[pick(rng)]);
    }
    std::sort(resample.begin(), resample.end());
    replicates.push_back(Percentile(resample, q));
  }
  return replicates;
}

std::vector<double> Draw(size_t n, auto&& distribution, std::mt19937_64& rng) {
  std::vector<double> v(n);
  for (double& x : v) x = distribution(rng);
  return v;
}

TEST(NormalQuantile, KnownValuesAndEdges) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.05), -1.6448536269514729, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.999), 3.090232306167813, 1e-11);
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(NormalCdf(NormalQuantile(1e-10)), 1e-10, 1e-22);
  EXPECT_EQ(NormalQuantile(0.0), -INFINITY);
  EXPECT_EQ(NormalQuantile(1.0), INFINITY);
  EXPECT_TRUE(std::isnan(NormalQuantile(1.5)));
  EXPECT_TRUE(std::isnan(NormalQuantile(NAN)));
}

TEST(PooledSamples, SortsPoolsAndCountsTrialsBeforeAnyPosition) {
  // Ties across trials, sizes that are not multiples of the checkpoint block, an empty trial
  // and NaN values (skipped).
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> small(0, 40);
  TrialSamples trials(4);
  for (size_t t = 0; t < 4; ++t) {
    if (t == 2) continue;  // empty
    for (size_t k = 0; k < 100 + 37 * t; ++k) trials[t].push_back(small(rng));
  }
  trials[1].push_back(NAN);
  const PooledSamples pooled(trials);
  ASSERT_EQ(pooled.trial_count(), 3u);
  EXPECT_EQ(pooled.skipped_nan(), 1u);
  ASSERT_EQ(pooled.size(), 100u + 137u + 211u);
  EXPECT_TRUE(std::is_sorted(pooled.sorted().begin(), pooled.sorted().end()));
  EXPECT_EQ(pooled.trial_sizes()[0], 100u);
  EXPECT_EQ(pooled.trial_sizes()[1], 137u);
  EXPECT_EQ(pooled.trial_sizes()[2], 211u);

  // Counts before a position: the trials' counts add up to the position, never decrease, and
  // the counts of each value add up to how often it occurs in that trial.
  std::vector<size_t> counts(3);
  std::vector<size_t> previous(3, 0);
  for (size_t p = 0; p <= pooled.size(); ++p) {
    pooled.CountsBefore(p, counts);
    EXPECT_EQ(counts[0] + counts[1] + counts[2], p);
    for (size_t t = 0; t < 3; ++t) EXPECT_GE(counts[t], previous[t]);
    previous = counts;
  }
  EXPECT_EQ(previous, (std::vector<size_t>{100, 137, 211}));
  // Samples below the value 20 of each trial.
  const size_t below =
      static_cast<size_t>(std::lower_bound(pooled.sorted().begin(), pooled.sorted().end(), 20.0) -
                          pooled.sorted().begin());
  pooled.CountsBefore(below, counts);
  const size_t input_index[] = {0, 1, 3};
  for (size_t t = 0; t < 3; ++t) {
    const auto& v = trials[input_index[t]];
    EXPECT_EQ(counts[t], static_cast<size_t>(
                             std::count_if(v.begin(), v.end(), [](double x) { return x < 20; })));
  }
}

TEST(PooledSamples, MeanAndStratifiedVariance) {
  const TrialSamples trials = {{1, 2, 3, 4}, {10, 20}, {7}};
  const PooledSamples pooled(trials);
  EXPECT_DOUBLE_EQ(pooled.mean(), 47.0 / 7.0);
  // Σ (n_t/N)² s_t²/n_t: s² = 5/3 (n 4), 50 (n 2), the single sample contributes nothing.
  const double expected = (16.0 / 49) * (5.0 / 3) / 4 + (4.0 / 49) * 50.0 / 2;
  EXPECT_NEAR(pooled.StratifiedMeanVariance(), expected, 1e-12);
  EXPECT_TRUE(std::isnan(PooledSamples(TrialSamples{{1}, {2}}).StratifiedMeanVariance()));
  EXPECT_TRUE(std::isnan(PooledSamples(TrialSamples{}).mean()));
}

// One trial, one rank: P(resample's rank r ≤ x_(j)) = P(Binomial(N, (j+1)/N) ≥ r + 1).
double BinomialAtLeast(int n, double p, int k) {
  double total = 0;
  for (int i = k; i <= n; ++i) {
    total += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                      i * std::log(p) + (n - i) * std::log1p(-p));
  }
  return total;
}

TEST(OrderStatisticResampler, OneTrialMatchesTheClosedForm) {
  constexpr int kN = 25;
  constexpr int kDraws = 40000;
  std::vector<double> values(kN);
  for (int i = 0; i < kN; ++i) values[i] = i;
  const PooledSamples pooled(TrialSamples{values});
  OrderStatisticResampler resampler(pooled);
  std::mt19937_64 rng(17);
  for (int rank : {0, 6, 12, 23, 24}) {
    std::vector<int> histogram(kN, 0);
    for (int d = 0; d < kDraws; ++d) ++histogram[resampler.Draw(rank, false, rng).first];
    double empirical = 0;
    double worst = 0;
    for (int j = 0; j < kN; ++j) {
      empirical += histogram[j] / static_cast<double>(kDraws);
      const double exact = j + 1 == kN ? 1.0 : BinomialAtLeast(kN, (j + 1.0) / kN, rank + 1);
      worst = std::max(worst, std::abs(empirical - exact));
    }
    // DKW: P(sup |F̂ − F| > 0.015) ≤ 2·exp(−2·40000·0.015²) ≈ 3e-8.
    EXPECT_LT(worst, 0.015) << "rank " << rank;
  }
}

TEST(OrderStatisticResampler, AdjacentRanksComeFromOneResample) {
  // The pair is ordered and, when the ranks part, the upper is the next drawn value.
  const PooledSamples pooled(TrialSamples{{1, 2, 3, 4, 5}, {2.5, 3.5}});
  OrderStatisticResampler resampler(pooled);
  std::mt19937_64 rng(5);
  for (int d = 0; d < 2000; ++d) {
    for (size_t rank = 0; rank + 1 < pooled.size(); ++rank) {
      const auto [a, b] = resampler.Draw(rank, true, rng);
      ASSERT_LE(a, b);
      ASSERT_LT(b, pooled.size());
    }
  }
}

TEST(PercentileReplicates, MatchBruteForceStratifiedBootstrap) {
  // Three trials of different sizes and locations, with ties; q with and without
  // interpolation. Two-sample Kolmogorov distance between 20000 fast and 20000 brute-force
  // replicates: the 0.1 % critical value is 1.95·√(2/20000) ≈ 0.0195.
  const TrialSamples trials = {
      {3, 1, 4, 1, 5, 9, 2}, {6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4}, {20, 26, 4, 3}};
  const PooledSamples pooled(trials);
  constexpr int kReps = 20000;
  for (double q : {0.5, 0.9, 0.95, 0.3}) {
    std::mt19937_64 rng_fast(101);
    std::mt19937_64 rng_brute(202);
    const auto fast = PercentileReplicates(pooled, q, kReps, rng_fast);
    const auto brute = BruteForceReplicates(trials, q, kReps, true, rng_brute);
    ASSERT_EQ(fast.size(), static_cast<size_t>(kReps));
    EXPECT_LT(KolmogorovDistance(fast, brute), 0.02) << "q=" << q;
    double mean_fast = 0;
    double mean_brute = 0;
    for (int i = 0; i < kReps; ++i) {
      mean_fast += fast[i] / kReps;
      mean_brute += brute[i] / kReps;
    }
    EXPECT_NEAR(mean_fast, mean_brute, 0.1) << "q=" << q;
  }
}

TEST(PercentileReplicates, NothingToDrawGivesNoReplicates) {
  std::mt19937_64 rng(1);
  EXPECT_TRUE(PercentileReplicates(PooledSamples(TrialSamples{}), 0.5, 10, rng).empty());
  const PooledSamples pooled(TrialSamples{{1, 2, 3}});
  EXPECT_TRUE(PercentileReplicates(pooled, NAN, 10, rng).empty());
  EXPECT_TRUE(PercentileReplicates(pooled, 0.5, 0, rng).empty());
  // One sample: every resample is that sample.
  EXPECT_EQ(PercentileReplicates(PooledSamples(TrialSamples{{7}}), 0.99, 3, rng),
            (std::vector<double>{7, 7, 7}));
}

TEST(PercentileReplicates, TheComparisonCanTellStratifiedFromPooledResampling) {
  // The check above has power: resampling the pooled values (ignoring trials) gives a
  // clearly different median distribution when trials differ in location and size.
  const TrialSamples trials = {{0, 1, 2, 3, 4}, {100, 101, 102, 103, 104, 105, 106, 107, 108}};
  const PooledSamples pooled(trials);
  std::mt19937_64 rng_fast(1);
  std::mt19937_64 rng_pooled(2);
  const auto fast = PercentileReplicates(pooled, 0.5, 20000, rng_fast);
  const auto unstratified = BruteForceReplicates(trials, 0.5, 20000, false, rng_pooled);
  EXPECT_GT(KolmogorovDistance(fast, unstratified), 0.1);
}

struct Coverage {
  int p50 = 0;
  int p95 = 0;
  int mean = 0;
};

// CoverageOf: how often the 95 % intervals of p50, p95 and the mean, from `reps` samples of
// 500 (two trials of 250), contain the true values.
template <typename Distribution>
Coverage CoverageOf(Distribution distribution, double true_p50, double true_p95, double true_mean,
                    int reps, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Coverage hits;
  BootstrapOptions options;
  for (int r = 0; r < reps; ++r) {
    const TrialSamples trials = {Draw(250, distribution, rng), Draw(250, distribution, rng)};
    const PooledSamples pooled(trials);
    options.seed = seed + static_cast<uint64_t>(r);
    const Interval p50 = StatisticInterval(pooled, Statistic::kP50, options);
    const Interval p95 = StatisticInterval(pooled, Statistic::kP95, options);
    const Interval mean = StatisticInterval(pooled, Statistic::kMean, options);
    hits.p50 += p50.lo <= true_p50 && true_p50 <= p50.hi;
    hits.p95 += p95.lo <= true_p95 && true_p95 <= p95.hi;
    hits.mean += mean.lo <= true_mean && true_mean <= mean.hi;
  }
  return hits;
}

// 200 repetitions: a correct 95 % interval covers Binomial(200, 0.95) times, mean 190, sd 3.1;
// [176, 198] is beyond 4 sd below and the top of what 95 % reaches (198 of 200 is 99 %).
void ExpectCoverage(const char* name, const Coverage& c) {
  fmt::print("coverage of 95 % intervals, {}: p50 {}/200, p95 {}/200, mean {}/200\n", name, c.p50,
             c.p95, c.mean);
  for (int hits : {c.p50, c.p95, c.mean}) {
    EXPECT_GE(hits, 176);
    EXPECT_LE(hits, 198);
  }
}

TEST(StatisticInterval, CoversTheTrueValuesOfANormal) {
  const double z95 = NormalQuantile(0.95);
  const Coverage c = CoverageOf(std::normal_distribution<double>(2000, 150), 2000, 2000 + 150 * z95,
                                2000, 200, 1000);
  ExpectCoverage("normal", c);
}

TEST(StatisticInterval, CoversTheTrueValuesOfAnExponential) {
  const Coverage c = CoverageOf(std::exponential_distribution<double>(1.0 / 250),
                                250 * std::log(2.0), -250 * std::log(0.05), 250, 200, 2000);
  ExpectCoverage("exponential", c);
}

TEST(StatisticInterval, CoversTheTrueValuesOfALognormal) {
  const double mu = std::log(1500.0);
  const double sigma = 0.5;
  const Coverage c = CoverageOf(std::lognormal_distribution<double>(mu, sigma), std::exp(mu),
                                std::exp(mu + sigma * NormalQuantile(0.95)),
                                std::exp(mu + sigma * sigma / 2), 200, 3000);
  ExpectCoverage("lognormal", c);
}

TEST(StatisticInterval, WidthMatchesTheAsymptoticStandardErrorOnLargeSamples) {
  // Exponential, mean 250, three trials of 40000: the median's standard error is
  // √(q(1−q)/N)/f(x_q) with f(x_0.5) = 0.5/250, the p99's with f = 0.01/250; a 95 % interval
  // is ±1.96 of it. Brute force cannot reach this size; the fast resampler must still be right.
  std::mt19937_64 rng(9);
  std::exponential_distribution<double> d(1.0 / 250);
  const TrialSamples trials = {Draw(40000, d, rng), Draw(40000, d, rng), Draw(40000, d, rng)};
  const PooledSamples pooled(trials);
  const double n = 120000;
  for (auto [statistic, q] : {std::pair{Statistic::kP50, 0.5}, std::pair{Statistic::kP99, 0.99}}) {
    const Interval i = StatisticInterval(pooled, statistic, {});
    const double se = std::sqrt(q * (1 - q) / n) / ((1 - q) / 250);
    EXPECT_NEAR((i.hi - i.lo) / 2, 1.96 * se, 0.2 * 1.96 * se) << StatisticName(statistic);
    EXPECT_LE(i.lo, i.estimate);
    EXPECT_GE(i.hi, i.estimate);
    EXPECT_NEAR(i.estimate, -250 * std::log(1 - q), 4 * se);
  }
}

TEST(StatisticInterval, DeterministicForASeedAndDependsOnIt) {
  std::mt19937_64 rng(4);
  const TrialSamples trials = {Draw(3000, std::exponential_distribution<double>(0.01), rng)};
  BootstrapOptions options;
  const Interval a = StatisticInterval(trials, Statistic::kP95, options);
  const Interval b = StatisticInterval(trials, Statistic::kP95, options);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  options.seed = 2;
  const Interval c = StatisticInterval(trials, Statistic::kP95, options);
  EXPECT_TRUE(c.lo != a.lo || c.hi != a.hi);
  EXPECT_EQ(c.estimate, a.estimate);
}

TEST(StatisticInterval, ConstantInputGivesAPointInterval) {
  const TrialSamples trials = {std::vector<double>(600, 1234.5), std::vector<double>(400, 1234.5)};
  for (Statistic s : {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99}) {
    const Interval i = StatisticInterval(trials, s, {});
    EXPECT_EQ(i.estimate, 1234.5) << StatisticName(s);
    EXPECT_EQ(i.lo, 1234.5) << StatisticName(s);
    EXPECT_EQ(i.hi, 1234.5) << StatisticName(s);
  }
}

TEST(StatisticInterval, TooFewSamplesGiveNaNNeverACrash) {
  const Statistic all[] = {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99};
  for (Statistic s : all) {
    for (const TrialSamples& empty : {TrialSamples{}, TrialSamples{{}, {}}, TrialSamples{{NAN}}}) {
      const Interval i = StatisticInterval(empty, s, {});
      EXPECT_TRUE(std::isnan(i.estimate) && std::isnan(i.lo) && std::isnan(i.hi));
    }
    const Interval one = StatisticInterval(TrialSamples{{}, {42.0}}, s, {});
    EXPECT_EQ(one.estimate, 42.0);
    EXPECT_TRUE(std::isnan(one.lo) && std::isnan(one.hi));
    // Trials of one sample each: no spread to estimate the mean's from.
    const Interval singles = StatisticInterval(TrialSamples{{1.0}, {3.0}}, s, {});
    EXPECT_EQ(singles.estimate,
              s == Statistic::kMean ? 2.0 : StatisticOf(std::vector{1.0, 3.0}, s));
    EXPECT_TRUE(std::isnan(singles.lo) && std::isnan(singles.hi));
  }
  // The tail rule: p99 needs N·0.01 ≥ 5, p95 N·0.05 ≥ 5, p50 N·0.5 ≥ 5.
  std::vector<double> hundred(100);
  for (size_t i = 0; i < hundred.size(); ++i) hundred[i] = static_cast<double>(i);
  const TrialSamples trials = {hundred};
  EXPECT_TRUE(std::isnan(StatisticInterval(trials, Statistic::kP99, {}).lo));
  EXPECT_FALSE(std::isnan(StatisticInterval(trials, Statistic::kP99, {}).estimate));
  EXPECT_FALSE(std::isnan(StatisticInterval(trials, Statistic::kP95, {}).lo));
  EXPECT_TRUE(std::isnan(
      StatisticInterval(TrialSamples{{1, 2, 3, 4, 5, 6, 7, 8, 9}}, Statistic::kP50, {}).lo));
  EXPECT_FALSE(std::isnan(
      StatisticInterval(TrialSamples{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, Statistic::kP50, {}).lo));
  // Invalid options: bounds undefined, estimate still given.
  for (BootstrapOptions bad :
       {BootstrapOptions{.resamples = 0}, BootstrapOptions{.confidence = 1},
        BootstrapOptions{.confidence = -0.5}, BootstrapOptions{.min_tail = -1}}) {
    const Interval i = StatisticInterval(trials, Statistic::kP50, bad);
    EXPECT_EQ(i.estimate, 49.5);
    EXPECT_TRUE(std::isnan(i.lo) && std::isnan(i.hi));
  }
}

// Two arms of three trials each, latencies around 2 ms, arm b shifted by `shift_us`.
std::pair<TrialSamples, TrialSamples> ShiftedArms(double shift_us, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(1600.0), 0.25);
  TrialSamples a;
  TrialSamples b;
  for (int t = 0; t < 3; ++t) {
    a.push_back(Draw(1500, d, rng));
    std::vector<double> shifted = Draw(1500, d, rng);
    for (double& x : shifted) x += shift_us;
    b.push_back(std::move(shifted));
  }
  return {a, b};
}

TEST(DifferenceInterval, ShiftedArmsExcludeZeroAndCoverTheShift) {
  const auto [a, b] = ShiftedArms(400, 77);
  for (Statistic s : {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99}) {
    const Interval d = DifferenceInterval(a, b, s, {});
    EXPECT_GT(d.lo, 0) << StatisticName(s);
    EXPECT_LE(d.lo, 400) << StatisticName(s);
    EXPECT_GE(d.hi, 400) << StatisticName(s);
    const Verdict v = MakeVerdict(d);
    EXPECT_TRUE(v.detectable);
    EXPECT_EQ(v.sign, 1);
    EXPECT_EQ(v.text.rfind("+0.", 0), 0u) << v.text;
    // Swapping the arms flips the sign.
    const Interval reverse = DifferenceInterval(b, a, s, {});
    EXPECT_LT(reverse.hi, 0);
    EXPECT_EQ(MakeVerdict(reverse).sign, -1);
  }
}

TEST(DifferenceInterval, IdenticalDistributionsIncludeZero) {
  const auto [a, b] = ShiftedArms(0, 78);
  for (Statistic s : {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99}) {
    const Interval d = DifferenceInterval(a, b, s, {});
    EXPECT_LT(d.lo, 0) << StatisticName(s);
    EXPECT_GT(d.hi, 0) << StatisticName(s);
    const Verdict v = MakeVerdict(d);
    EXPECT_FALSE(v.detectable);
    EXPECT_EQ(v.sign, 0);
    EXPECT_EQ(v.text.rfind("no difference detectable above ±0.", 0), 0u) << v.text;
  }
}

TEST(DifferenceInterval, UndefinedWhenEitherArmIsTooSmall) {
  const auto [a, b] = ShiftedArms(0, 79);
  const Interval empty = DifferenceInterval(a, TrialSamples{}, Statistic::kP50, {});
  EXPECT_TRUE(std::isnan(empty.estimate) && std::isnan(empty.lo) && std::isnan(empty.hi));
  const Interval few = DifferenceInterval(TrialSamples{{1, 2, 3}}, b, Statistic::kP99, {});
  EXPECT_FALSE(std::isnan(few.estimate));
  EXPECT_TRUE(std::isnan(few.lo) && std::isnan(few.hi));
  EXPECT_FALSE(MakeVerdict(few).detectable);
}

}  // namespace
}  // namespace pqc
