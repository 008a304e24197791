// Spread between trials and outlier trials: per-trial values, and which trials get flagged
// (a 39 ms p99 among 2 ms ones; homogeneous trials; the documented 2- and 3-trial rules).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "stats/outlier_trials.h"
#include "stats/trial_spread.h"

namespace pqc {
namespace {

// A trial of 2000 latencies uniform on [1000, 2000) µs (p99 ≈ 1990), with the slowest
// `slow_fraction` of them replaced by `slow_us` (a disturbed trial).
std::vector<double> Trial(uint64_t seed, double slow_fraction = 0, double slow_us = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(1000, 2000);
  std::vector<double> v(2000);
  for (double& x : v) x = d(rng);
  const auto slow = static_cast<size_t>(slow_fraction * static_cast<double>(v.size()));
  for (size_t i = 0; i < slow; ++i) v[i] = slow_us;
  return v;
}

TrialSpread Spread(std::vector<double> per_trial) {
  TrialSpread s;
  s.per_trial = std::move(per_trial);
  return s;
}

TEST(SpreadBetweenTrials, PerTrialValuesAndRangeIgnoringEmptyTrials) {
  const TrialSamples trials = {{3, 1, 2}, {}, {10, 30, 20, 40}};
  const TrialSpread p50 = SpreadBetweenTrials(trials, Statistic::kP50);
  ASSERT_EQ(p50.per_trial.size(), 3u);
  EXPECT_EQ(p50.per_trial[0], 2.0);
  EXPECT_TRUE(std::isnan(p50.per_trial[1]));
  EXPECT_EQ(p50.per_trial[2], 25.0);
  EXPECT_EQ(p50.min, 2.0);
  EXPECT_EQ(p50.max, 25.0);
  const TrialSpread mean = SpreadBetweenTrials(trials, Statistic::kMean);
  EXPECT_EQ(mean.per_trial[2], 25.0);
  const TrialSpread p99 = SpreadBetweenTrials(trials, Statistic::kP99);
  EXPECT_DOUBLE_EQ(p99.per_trial[2], 39.7);  // h = 2.97: 30 + 0.97·10
  const TrialSpread none = SpreadBetweenTrials(TrialSamples{{}, {}}, Statistic::kP95);
  EXPECT_TRUE(std::isnan(none.min) && std::isnan(none.max));
}

TEST(SpreadBetweenTrials, FromPooledSamplesEqualsPerTrialSorting) {
  // Ties across and within trials, an empty trial, a one-sample trial, NaN (skipped).
  std::mt19937_64 rng(8);
  std::uniform_int_distribution<int> small(0, 30);
  TrialSamples trials(5);
  for (size_t k = 0; k < 300; ++k) trials[0].push_back(small(rng));
  for (size_t k = 0; k < 77; ++k) trials[2].push_back(small(rng) * 0.5);
  trials[3] = {12.0};
  for (size_t k = 0; k < 1001; ++k) trials[4].push_back(small(rng) + 3);
  trials[4].push_back(NAN);
  const PooledSamples pooled(trials);
  for (Statistic s : {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99}) {
    const TrialSpread direct = SpreadBetweenTrials(trials, s);
    const TrialSpread fast = SpreadBetweenTrials(pooled, s);
    ASSERT_EQ(fast.per_trial.size(), 5u);
    EXPECT_TRUE(std::isnan(fast.per_trial[1]));
    for (size_t t : {0, 2, 3, 4}) {
      EXPECT_NEAR(fast.per_trial[t], direct.per_trial[t], 1e-12) << StatisticName(s) << t;
    }
    EXPECT_NEAR(fast.min, direct.min, 1e-12);
    EXPECT_NEAR(fast.max, direct.max, 1e-12);
  }
  EXPECT_EQ(SpreadBetweenTrials(pooled, Statistic::kP50).per_trial[3], 12.0);
  EXPECT_TRUE(
      SpreadBetweenTrials(PooledSamples(TrialSamples{}), Statistic::kP99).per_trial.empty());
}

TEST(FindOutlierTrials, FlagsTheTrialWhoseP99IsTwentyTimesTheOthers) {
  // Trial 2 has 3 % of its connections at 39 ms: its p99 is 39000, the others' about 1990.
  const TrialSamples trials = {Trial(1), Trial(2), Trial(3, 0.03, 39000), Trial(4)};
  const auto flagged = FindOutlierTrials(trials, Statistic::kP99);
  const auto from_pooled = FindOutlierTrials(
      SpreadBetweenTrials(PooledSamples(trials), Statistic::kP99), Statistic::kP99);
  ASSERT_EQ(from_pooled.size(), 1u);
  EXPECT_EQ(from_pooled[0].trial, 2u);
  ASSERT_EQ(flagged.size(), 1u);
  EXPECT_EQ(flagged[0].trial, 2u);
  EXPECT_EQ(flagged[0].value, 39000);
  EXPECT_NEAR(flagged[0].others_median, 1990, 10);
  EXPECT_NE(flagged[0].reason.find("p99 39000 is 19.6× the median"), std::string::npos)
      << flagged[0].reason;
  EXPECT_NE(flagged[0].reason.find("of the other 3 trials"), std::string::npos);
  // Its median is unaffected (3 % slow connections): not an outlier for p50.
  EXPECT_TRUE(FindOutlierTrials(trials, Statistic::kP50).empty());
}

TEST(FindOutlierTrials, HomogeneousTrialsAreNotFlagged) {
  const TrialSamples trials = {Trial(11), Trial(12), Trial(13), Trial(14), Trial(15)};
  for (Statistic s : {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99}) {
    EXPECT_TRUE(FindOutlierTrials(trials, s).empty()) << StatisticName(s);
  }
  // Also with three and two trials.
  EXPECT_TRUE(
      FindOutlierTrials(TrialSamples{Trial(21), Trial(22), Trial(23)}, Statistic::kP99).empty());
  EXPECT_TRUE(FindOutlierTrials(TrialSamples{Trial(31), Trial(32)}, Statistic::kP99).empty());
}

TEST(FindOutlierTrials, ThreeTrialsFlagOnlyTheOneFarFromTwoAgreeingOnes) {
  const auto flagged = FindOutlierTrials(Spread({2000, 39000, 2100}), Statistic::kP99);
  ASSERT_EQ(flagged.size(), 1u);
  EXPECT_EQ(flagged[0].trial, 1u);
  EXPECT_EQ(flagged[0].others_median, 2050);
  EXPECT_TRUE(FindOutlierTrials(Spread({2000, 2100, 2200}), Statistic::kP99).empty());
  // Far in MADs but only 10 % away: not worth a flag.
  EXPECT_TRUE(FindOutlierTrials(Spread({1000, 1001, 1100}), Statistic::kP50).empty());
}

TEST(FindOutlierTrials, ALowOutlierIsFlaggedToo) {
  const auto flagged = FindOutlierTrials(Spread({2000, 2050, 2100, 500}), Statistic::kMean);
  ASSERT_EQ(flagged.size(), 1u);
  EXPECT_EQ(flagged[0].trial, 3u);
  EXPECT_EQ(flagged[0].others_median, 2050);
}

TEST(FindOutlierTrials, TwoTrialsThatDisagreeAreBothFlagged) {
  const auto flagged = FindOutlierTrials(Spread({39000, 2000}), Statistic::kP99);
  ASSERT_EQ(flagged.size(), 2u);
  EXPECT_EQ(flagged[0].trial, 0u);
  EXPECT_EQ(flagged[0].others_median, 2000);
  EXPECT_EQ(flagged[1].trial, 1u);
  EXPECT_EQ(flagged[1].others_median, 39000);
  EXPECT_EQ(flagged[1].reason,
            "p99 2000 is 0.0513× the other trial's 39000: the two trials disagree by more than "
            "50 % and neither can be called the outlier");
  // Within 50 % of the smaller value: no flag, whichever is listed first.
  EXPECT_TRUE(FindOutlierTrials(Spread({2000, 2900}), Statistic::kP99).empty());
  EXPECT_TRUE(FindOutlierTrials(Spread({2900, 2000}), Statistic::kP99).empty());
  EXPECT_EQ(FindOutlierTrials(Spread({2000, 3100}), Statistic::kP99).size(), 2u);
}

TEST(FindOutlierTrials, FewOrUndefinedTrialsAndOptions) {
  EXPECT_TRUE(FindOutlierTrials(TrialSamples{}, Statistic::kP99).empty());
  EXPECT_TRUE(FindOutlierTrials(TrialSamples{Trial(1, 0.03, 39000)}, Statistic::kP99).empty());
  // An empty trial is ignored: three defined trials remain, the far one is flagged with its
  // original index.
  const auto flagged = FindOutlierTrials(Spread({2000, NAN, 2100, 39000}), Statistic::kP99);
  ASSERT_EQ(flagged.size(), 1u);
  EXPECT_EQ(flagged[0].trial, 3u);
  EXPECT_NE(flagged[0].reason.find("other 2 trials"), std::string::npos);
  // A stricter relative threshold flags a 60 % deviation no more.
  const TrialSpread spread = Spread({2000, 2010, 1990, 3200});
  EXPECT_EQ(FindOutlierTrials(spread, Statistic::kP99).size(), 1u);
  EXPECT_TRUE(FindOutlierTrials(spread, Statistic::kP99, {.relative = 1.0}).empty());
}

}  // namespace
}  // namespace pqc
