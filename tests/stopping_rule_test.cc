// A study that stops itself (stats/stopping_rule.h): the rule's bookkeeping (looks, budgets,
// what the planner says would answer an open question), and by simulation with known answers —
// studies of two arms paired by block, log latency = the arm's level + a block effect shared by
// the arms + a trial effect per arm and block + connection noise, the truth known in closed
// form (lognormal) — that the intervals the rule stops on still cover the truth, that an A/A
// pair is rarely called different, and that a rule stopping at the first look whose interval
// excludes 0 calls an A/A pair different far more often. Pure and seeded.
#include "stats/stopping_rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lognormal_truth.h"
#include "stats/block_differences.h"
#include "stats/pooled_samples.h"
#include "stats/student_t.h"
#include "stats/trial_jackknife.h"
#include "stats/trial_length.h"
#include "stats/trial_plan.h"

namespace pqc {
namespace {

// ---- The pieces ----

TEST(PooledSamples, WithTrialIsPoolingEveryTrialAgain) {
  std::mt19937_64 rng(4);
  std::uniform_int_distribution<int> small(0, 30);  // ties, across trials too
  TrialSamples trials = {{}, {5.0}, {}, {}};
  for (int k = 0; k < 300; ++k) trials[0].push_back(small(rng));
  for (int k = 0; k < 200; ++k) trials[2].push_back(small(rng) + 0.5);
  trials[2].push_back(NAN);
  for (int k = 0; k < 50; ++k) trials[3].push_back(small(rng));
  PooledSamples grown{TrialSamples{}};
  for (const auto& t : trials) grown = grown.WithTrial(t);
  const PooledSamples whole(trials);
  ASSERT_EQ(grown.size(), whole.size());
  EXPECT_EQ(grown.trial_count(), whole.trial_count());
  EXPECT_EQ(grown.input_trial_count(), whole.input_trial_count());
  EXPECT_EQ(grown.skipped_nan(), 1u);
  EXPECT_DOUBLE_EQ(grown.mean(), whole.mean());
  EXPECT_DOUBLE_EQ(grown.StratifiedMeanVariance(), whole.StratifiedMeanVariance());
  std::vector<size_t> cg(grown.trial_count()), cw(whole.trial_count());
  for (size_t p = 0; p <= whole.size(); p += 7) {
    EXPECT_EQ(grown.sorted()[std::min(p, whole.size() - 1)],
              whole.sorted()[std::min(p, whole.size() - 1)]);
    grown.CountsBefore(p, cg);
    whole.CountsBefore(p, cw);
    EXPECT_EQ(cg, cw) << p;
  }
  for (size_t t = 0; t < whole.trial_count(); ++t) {
    EXPECT_EQ(grown.input_index(t), whole.input_index(t));
  }
}

TEST(TrialPlan, PrecisionAloneAtAFixedLength) {
  const TrialPlanInput in{
      .between = 100, .within = 100, .duration_s = 2, .overhead_s = 1, .resolve = 10, .power = 0.5};
  const std::optional<TrialPlan> best = PlanTrials(in);
  ASSERT_TRUE(best);
  EXPECT_EQ(TrialsAt(in, best->duration_s), best->trials);
  // Precision alone: t · √(variance / T) ≤ resolve, and T − 1 does not do it.
  const std::optional<uint64_t> t2 = TrialsAt(in, 2);
  ASSERT_TRUE(t2);
  auto half = [&](uint64_t t) {
    return StudentTQuantile(0.95, static_cast<int>(t) - 1) *
           std::sqrt(200.0 / static_cast<double>(t));
  };
  EXPECT_LE(half(*t2), 10);
  EXPECT_GT(half(*t2 - 1), 10);
  TrialPlanInput powered = in;
  powered.power = 0.8;
  EXPECT_GT(*TrialsAt(powered, 2), *t2);  // power asks for more than precision
  EXPECT_FALSE(TrialsAt(in, 0));
  powered.power = 0.4;
  EXPECT_FALSE(TrialsAt(powered, 2));
}

TEST(BlockDifferences, TheMeanOfEqualTrialsIsTheJackknifeAndBlocksPairById) {
  std::mt19937_64 rng(6);
  std::normal_distribution<double> z(0, 30);
  TrialSamples a(5), b(5);
  for (size_t t = 0; t < 5; ++t) {
    for (int k = 0; k < 50; ++k) {
      a[t].push_back(1000 + 40.0 * static_cast<double>(t) + z(rng));
      b[t].push_back(1100 + z(rng));
    }
  }
  const std::vector<uint64_t> units = {0, 1, 2, 3, 4};
  const PooledSamples pa(a), pb(b);
  EXPECT_NEAR(BlockDifferenceVariance(pa, units, pb, units, Statistic::kMean),
              PairedDifference(pa, units, pb, units, Statistic::kMean).variance, 1e-9);
  // b's trials in another order, named by their blocks: the same pairs.
  const TrialSamples b_shuffled = {b[3], b[0], b[4], b[1], b[2]};
  const std::vector<uint64_t> shuffled = {3, 0, 4, 1, 2};
  EXPECT_NEAR(
      BlockDifferenceVariance(pa, units, PooledSamples(b_shuffled), shuffled, Statistic::kP99),
      BlockDifferenceVariance(pa, units, pb, units, Statistic::kP99), 1e-9);
  // One block in common: no variance.
  const std::vector<uint64_t> apart = {4, 5, 6, 7, 8};
  EXPECT_TRUE(std::isnan(BlockDifferenceVariance(pa, units, pb, apart, Statistic::kP50)));
}

// A study of two arms whose every block is the same two trials: the jackknife variance is 0,
// so every interval is the connections' floor, and its half-width is known.
struct FixedStudy {
  std::vector<double> a_trial, b_trial;
  std::vector<PooledSamples> a, b;  // after 1, 2, ... blocks
  std::vector<uint64_t> units;
  explicit FixedStudy(size_t blocks) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> z(0, 1);
    for (int k = 0; k < 1000; ++k) {
      a_trial.push_back(1000 * std::exp(0.3 * z(rng)));
      b_trial.push_back(1100 * std::exp(0.3 * z(rng)));
    }
    PooledSamples pa{TrialSamples{}}, pb{TrialSamples{}};
    for (size_t k = 0; k < blocks; ++k) {
      pa = pa.WithTrial(a_trial);
      pb = pb.WithTrial(b_trial);
      a.push_back(pa);
      b.push_back(pb);
      units.push_back(k);
    }
  }
  Decision At(const StoppingRule& rule, std::span<const Question> q, uint64_t blocks,
              double elapsed_s = 0) const {
    const SeriesOf series = [&](size_t arm, size_t) {
      return Series{arm == 0 ? &a[blocks - 1] : &b[blocks - 1],
                    std::span<const uint64_t>(units).first(blocks)};
    };
    return Decide(rule, q, series, {.blocks = blocks, .elapsed_s = elapsed_s, .trial_s = 2});
  }
};

TEST(StoppingRule, LooksAnswersAndBudgets) {
  const FixedStudy study(8);
  const std::vector<Question> loose = {
      {.other = 1, .statistic = Statistic::kP50, .precision = {.value = 0.2}},
      {.other = 1, .statistic = Statistic::kMean, .precision = {Precision::Kind::kAbsolute, 200}}};
  const StoppingRule rule{.max_blocks = 6, .max_seconds = 100};
  // Before the first look the study goes on, however precise.
  const Decision early = study.At(rule, loose, 3);
  EXPECT_EQ(early.reason, StopReason::kContinue);
  EXPECT_EQ(early.answers[0].state, AnswerState::kOpen);
  EXPECT_NEAR(
      early.answers[0].difference.interval.hi - early.answers[0].difference.interval.estimate,
      early.answers[0].half_width, 1e-9);
  EXPECT_LT(early.answers[0].half_width, early.answers[0].target);
  // At the first look both are within their targets: answered, reported as estimate ± target.
  const Decision first = study.At(rule, loose, 4);
  EXPECT_EQ(first.reason, StopReason::kAnswered);
  ASSERT_EQ(first.answers.size(), 2u);
  const Answer& p50 = first.answers[0];
  EXPECT_EQ(p50.state, AnswerState::kAnswered);
  EXPECT_NEAR(p50.target, 0.2 * StatisticOf(study.a[3].sorted(), Statistic::kP50), 1e-9);
  EXPECT_LE(p50.half_width, p50.target);
  EXPECT_NEAR(p50.difference.interval.hi - p50.difference.interval.estimate, p50.target, 1e-9);
  EXPECT_EQ(first.answers[1].target, 200);
  // Asked for more than the connections allow: never answered; the block budget ends it, and
  // the answer says it was not answered, its interval as computed, and what the planner says.
  const std::vector<Question> tight = {
      {.other = 1, .statistic = Statistic::kP50, .precision = {.value = 0.0001}}};
  const Decision go_on = study.At(rule, tight, 5, 40);
  EXPECT_EQ(go_on.reason, StopReason::kContinue);
  EXPECT_EQ(go_on.answers[0].state, AnswerState::kOpen);
  const Decision spent = study.At(rule, tight, 6, 50);
  EXPECT_EQ(spent.reason, StopReason::kBlockBudget);
  const Answer& no = spent.answers[0];
  EXPECT_EQ(no.state, AnswerState::kUnanswered);
  EXPECT_GT(no.half_width, no.target);
  EXPECT_NEAR(no.difference.interval.hi - no.difference.interval.estimate, no.half_width, 1e-9);
  EXPECT_TRUE(std::isfinite(no.within));
  EXPECT_EQ(no.between, 0);  // identical blocks: nothing between them
  EXPECT_TRUE(!no.blocks_needed || *no.blocks_needed > 6u);  // beyond reach here
  // The time budget: 5 blocks took 90 s, a sixth would end after 100 s.
  EXPECT_EQ(study.At(rule, tight, 5, 90).reason, StopReason::kTimeBudget);
  // An invalid rule judges nothing.
  EXPECT_EQ(study.At({.min_blocks = 2}, loose, 4).reason, StopReason::kInvalidRule);
  EXPECT_EQ(study.At({.min_blocks = 4, .spent_df = 3}, loose, 4).reason, StopReason::kInvalidRule);
}

TEST(StoppingRule, UnansweredQuestionsSayWhatWouldAnswerThem) {
  Answer a;
  a.between = 100;
  a.within = 100;
  a.target = 5;
  PlanAnswer({}, {.blocks = 6, .trial_s = 2, .overhead_s = 1}, a);
  ASSERT_TRUE(a.blocks_needed);
  ASSERT_TRUE(a.cheapest);
  EXPECT_EQ(*a.blocks_needed, *TrialsAt({.between = 100,
                                         .within = 100,
                                         .duration_s = 2,
                                         .overhead_s = 1,
                                         .resolve = 5,
                                         .power = 0.5},
                                        2));
  EXPECT_LE(a.cheapest->total_s, static_cast<double>(*a.blocks_needed) * 3);
  a.between = NAN;  // no variance yet: nothing to plan from
  PlanAnswer({}, {.blocks = 6, .trial_s = 2}, a);
  EXPECT_FALSE(a.blocks_needed);
}

TEST(TrialLength, TheLengthThatAnswersEveryQuestionSoonest) {
  const Look look{.blocks = 4, .trial_s = 2, .overhead_s = 2};
  Answer p50;  // trials disagree: its variance is between them
  p50.between = 400;
  p50.within = 4;
  p50.target = 10;
  Answer p99;  // its connections' own sampling dominates
  p99.between = 10;
  p99.within = 4000;
  p99.target = 40;
  const StoppingRule rule;
  const std::optional<TrialLengthAdvice> alone50 = AdviseTrialLength({&p50, 1}, rule, look, 2);
  const std::optional<TrialLengthAdvice> alone99 = AdviseTrialLength({&p99, 1}, rule, look, 2);
  ASSERT_TRUE(alone50 && alone99);
  EXPECT_EQ(alone50->duration_s, 1);  // many short trials
  EXPECT_GT(alone99->duration_s, 2);  // fewer, longer ones
  // Both at once: the least total over the planner's lengths of the slower question's blocks.
  const std::vector<Answer> both = {p50, p99};
  const std::optional<TrialLengthAdvice> joint = AdviseTrialLength(both, rule, look, 2);
  ASSERT_TRUE(joint);
  double least = 1e300;
  for (double d : kPlannedDurations) {
    const uint64_t blocks = std::max(*TrialsAt(PlanInputOf(p50, rule, look), d),
                                     *TrialsAt(PlanInputOf(p99, rule, look), d));
    least = std::min(least, static_cast<double>(blocks * 2) * (d + look.overhead_s));
  }
  EXPECT_DOUBLE_EQ(joint->total_s, least);
  EXPECT_GE(joint->total_s, std::max(alone50->total_s, alone99->total_s));
  Answer unknown;  // no interval yet
  EXPECT_FALSE(AdviseTrialLength({&unknown, 1}, rule, look, 2));
}

TEST(TrialLength, AStudySwitchesOnlyWhenTheRestCostsAFifthLessFromScratch) {
  const StoppingRule rule;
  // Five-second trials, trials disagreeing far more than their connections: one-second trials
  // answer in about as many blocks at a quarter of the cost, even with the pilot thrown away.
  Answer p50;
  p50.between = 400;
  p50.within = 20;
  p50.target = 5;
  const Look pilot{.blocks = 4, .trial_s = 5, .overhead_s = 0.5};
  const std::optional<TrialLengthChoice> sw = ChooseTrialLength({&p50, 1}, rule, pilot, 2);
  ASSERT_TRUE(sw);
  EXPECT_TRUE(sw->switches(pilot));
  EXPECT_TRUE(sw->answerable);
  EXPECT_EQ(sw->duration_s, 1);
  EXPECT_EQ(sw->blocks, *TrialsAt(PlanInputOf(p50, rule, pilot), 1));
  const uint64_t stay = *TrialsAt(PlanInputOf(p50, rule, pilot), 5);
  ASSERT_TRUE(sw->stay_s);
  EXPECT_DOUBLE_EQ(*sw->stay_s, static_cast<double>((stay - 4) * 2) * 5.5);
  EXPECT_LT(sw->total_s, kSwitchShare * *sw->stay_s);
  // The same variances, nearly answered already: the blocks still needed at five seconds cost
  // less than a fresh start at one.
  Answer near = p50;
  near.target = 60;
  const std::optional<TrialLengthChoice> go_on = ChooseTrialLength({&near, 1}, rule, pilot, 2);
  ASSERT_TRUE(go_on);
  EXPECT_FALSE(go_on->switches(pilot));
  EXPECT_TRUE(go_on->answerable);
  // Already at the advised length: stay.
  const Look one{.blocks = 4, .trial_s = 1, .overhead_s = 0.5};
  EXPECT_FALSE(ChooseTrialLength({&p50, 1}, rule, one, 2)->switches(one));
  // A saving under a fifth is not worth the pilot: two-second trials where one-second ones
  // would cost a little less (between-trial variance and overhead alike).
  Answer close = p50;
  close.within = 0;
  const Look two{.blocks = 0, .trial_s = 2, .overhead_s = 8};
  const std::optional<TrialLengthAdvice> advice = AdviseTrialLength({&close, 1}, rule, two, 2);
  ASSERT_TRUE(advice);
  EXPECT_EQ(advice->duration_s, 1);  // 9 s a block against 10 s: a tenth less
  EXPECT_FALSE(ChooseTrialLength({&close, 1}, rule, two, 2)->switches(two));
  // Out of reach at this length, within reach at another: switch, staying has no cost to show.
  Answer tail;  // a p99 of one-second trials: its connections' sampling is all of it
  tail.between = 1;
  tail.within = 1e6;
  tail.target = 40;
  ASSERT_FALSE(TrialsAt(PlanInputOf(tail, rule, one), 1));
  const std::optional<TrialLengthChoice> longer = ChooseTrialLength({&tail, 1}, rule, one, 2);
  ASSERT_TRUE(longer);
  EXPECT_GT(longer->duration_s, 1);
  EXPECT_TRUE(longer->answerable);
  EXPECT_FALSE(longer->stay_s);
  // No variance yet: nothing to choose from.
  Answer unknown;
  EXPECT_FALSE(ChooseTrialLength({&unknown, 1}, rule, pilot, 2));
}

TEST(TrialLength, WhenNoLengthAnswersWithinTheBudgetTheClosestWins) {
  // 76 s left: 25 blocks of one-second trials (3 s each) or 6 more of five-second ones (11 s),
  // ±2 asked where hundreds of blocks would be needed at any length.
  const StoppingRule rule{.max_seconds = 120};
  const Look pilot{.blocks = 4, .elapsed_s = 44, .trial_s = 5, .overhead_s = 0.5};
  Answer p50;
  p50.between = 400;
  p50.within = 20;
  p50.target = 2;
  const std::optional<TrialLengthChoice> c = ChooseTrialLength({&p50, 1}, rule, pilot, 2);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->answerable);
  EXPECT_EQ(c->duration_s, 1);
  EXPECT_EQ(c->blocks, 25u);
  // The slowest question's half-width over its target at the budget's end: t on U − 2.
  const double at_one = StudentTQuantileDf(0.95, 23) * std::sqrt((400 + 20 * 5) / 25.0) / 2;
  const double staying = StudentTQuantileDf(0.95, 8) * std::sqrt((400 + 20) / 10.0) / 2;
  EXPECT_NEAR(c->reach, at_one, 1e-9);
  EXPECT_NEAR(c->stay_reach, staying, 1e-9);
  // A tail whose trials' connections are most of its variance: one-second trials left where
  // they are come closest (longer ones buy too few blocks in 60 s).
  Answer tail;
  tail.between = 1;
  tail.within = 1e4;
  tail.target = 10;
  const Look ones{.blocks = 4, .elapsed_s = 60, .trial_s = 1, .overhead_s = 0.5};
  const std::optional<TrialLengthChoice> t = ChooseTrialLength({&tail, 1}, rule, ones, 2);
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->answerable);
  EXPECT_FALSE(t->switches(ones));
  EXPECT_EQ(t->blocks, 24u);  // 4 + 60 s / 3 s
  EXPECT_NEAR(t->reach, StudentTQuantileDf(0.95, 22) * std::sqrt(10001 / 24.0) / 10, 1e-9);
}

// ---- The simulated study ----

// Model: as this machine's studies look (docs/methodology.md): a trial's level varies by 10 %
// (SD of log), so with 400 connections of SD 0.3 per trial a trial's p50 varies about 28×
// more, in variance, than its connections make it; blocks drift by 8 %, shared by the arms.
struct Model : PairedArmsModel {
  Model() { sigma_trial = 0.10; }
};

// Stream: one study's blocks, added one at a time; each arm's samples pooled incrementally as a
// runner would (PooledSamples::AddTrial).
class Stream {
 public:
  Stream(const Model& m, uint64_t seed) : m_(m), rng_(seed) {}

  void AddBlock() {
    const double block = m_.sigma_block * z_(rng_);
    for (auto [mu, arm] : {std::pair{m_.mu_a, &a_}, std::pair{m_.mu_b, &b_}}) {
      const double trial = m_.sigma_trial * z_(rng_);
      std::vector<double> v(m_.n);
      for (double& x : v) x = mu * std::exp(block + trial + m_.sigma_within * z_(rng_));
      arm->AddTrial(v);
    }
    blocks_.push_back(blocks_.size());
  }
  SeriesOf Series() const {
    return [this](size_t arm, size_t) { return pqc::Series{arm == 0 ? &a_ : &b_, blocks_}; };
  }
  uint64_t blocks() const { return blocks_.size(); }
  const PooledSamples& a() const { return a_; }
  const PooledSamples& b() const { return b_; }
  Units units() const { return blocks_; }

 private:
  Model m_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> z_{0, 1};
  PooledSamples a_{TrialSamples{}}, b_{TrialSamples{}};
  std::vector<uint64_t> blocks_;
};

constexpr std::array kAsked = {Statistic::kMean, Statistic::kP50, Statistic::kP99};

// Tally: one statistic's outcomes over the simulated studies.
struct Tally {
  int studies = 0, covered = 0, different = 0, answered = 0;
  double blocks = 0;
  double Rate(int k) const { return static_cast<double>(k) / studies; }
  double MeanBlocks() const { return blocks / studies; }
};

// Count: a study of statistic kAsked[i] that stopped with `d` after `blocks` blocks.
void Count(Tally& t, const Model& m, size_t i, const Decision& d, uint64_t blocks) {
  const Interval& iv = d.answers[0].difference.interval;
  const double truth = m.TrueDifference(kAsked[i]);
  ++t.studies;
  t.covered += iv.lo <= truth && truth <= iv.hi;
  t.different += iv.lo > 0 || iv.hi < 0;
  t.answered += d.reason == StopReason::kAnswered;
  t.blocks += static_cast<double>(blocks);
}

// Targets: the half-width asked of each statistic, relative to the baseline (kAsked's order).
using Targets = std::array<double, kAsked.size()>;

struct Outcome {
  std::array<Tally, kAsked.size()> rule;  // one single-question study per statistic
  Tally naive;                            // p50, stopped at the first significant look
};

// Simulate: `studies` streams. On each, every statistic is a study of its own with one
// question (the worst case: its own half-width alone decides when it stops) — the three share
// the stream's blocks, each stopping at its own look, so each is exactly the study it would
// have been alone. With `naive_max` > 0 the naive rule runs on the same stream: p50 at every
// look from 3 blocks up to naive_max, "different" at the first interval that excludes 0.
Outcome Simulate(const Model& m, const StoppingRule& rule, const Targets& targets, int studies,
                 uint64_t seed, uint64_t naive_max) {
  Outcome out;
  for (int k = 0; k < studies; ++k) {
    Stream s(m, seed * 1'000'003 + static_cast<uint64_t>(k));
    std::array<bool, kAsked.size()> done{};
    bool naive_done = naive_max == 0;
    while (!naive_done || std::find(done.begin(), done.end(), false) != done.end()) {
      s.AddBlock();
      const Look look{.blocks = s.blocks(), .trial_s = 2};
      for (size_t i = 0; i < kAsked.size(); ++i) {
        if (done[i]) continue;
        const Question q{.other = 1, .statistic = kAsked[i], .precision = {.value = targets[i]}};
        const Decision d = Decide(rule, std::span(&q, 1), s.Series(), look);
        if (!d.stop()) continue;
        done[i] = true;
        Count(out.rule[i], m, i, d, s.blocks());
      }
      if (!naive_done && s.blocks() >= 3) {
        const Interval iv =
            PairedDifference(s.a(), s.units(), s.b(), s.units(), Statistic::kP50).interval;
        const bool significant = iv.lo > 0 || iv.hi < 0;
        if (significant || s.blocks() >= naive_max) {
          naive_done = true;
          ++out.naive.studies;
          out.naive.different += significant;
          out.naive.blocks += static_cast<double>(s.blocks());
        }
      }
    }
  }
  return out;
}

// The rule as shipped, on studies of this machine's shape: every statistic asked to ±10 % of
// the baseline (about 11 blocks for the mean and p50 here, where a trial's level varies by
// 10 %, and 17 for p99), a budget of 30 blocks. Each statistic is a study of its own
// (Simulate).
constexpr Targets kTargets = {0.10, 0.10, 0.10};
StoppingRule ShippedRule() {
  return {.max_blocks = 30};
}

void Report(const char* what, const Outcome& o) {
  for (size_t i = 0; i < kAsked.size(); ++i) {
    const Tally& t = o.rule[i];
    const std::string name(StatisticName(kAsked[i]));
    std::printf("%s, %s: coverage %.4f, called different %.4f, answered %.4f, blocks %.2f\n", what,
                name.c_str(), t.Rate(t.covered), t.Rate(t.different), t.Rate(t.answered),
                t.MeanBlocks());
    ::testing::Test::RecordProperty(std::string(what) + "_" + name + "_coverage",
                                    std::to_string(t.Rate(t.covered)));
    ::testing::Test::RecordProperty(std::string(what) + "_" + name + "_different",
                                    std::to_string(t.Rate(t.different)));
    ::testing::Test::RecordProperty(std::string(what) + "_" + name + "_expected_blocks",
                                    std::to_string(t.MeanBlocks()));
  }
}

// 2,000 studies per statistic: a coverage near 95 % is then measured to ±0.5 % (one standard
// error, √(.95 · .05 / 2000)); over three seeds the rule's coverage averaged 95.0 % (mean),
// 95.3 % (p50) and 94.6 % (p99), and at 94.3 % the chance of falling below 93 % is
// P(Z < −2.5) = 0.6 %, at 95.6 % that of exceeding 97 % P(Z > 2.9) = 0.2 %: a chance failure
// for fewer than 1 seed in 100.
TEST(StoppingRuleSimulation, IntervalsItStopsOnCoverTheTruth) {
  const Model m;  // b is 15 % slower
  const Outcome o = Simulate(m, ShippedRule(), kTargets, 2000, 11, 0);
  Report("ab", o);
  for (size_t i = 0; i < kAsked.size(); ++i) {
    SCOPED_TRACE(std::string(StatisticName(kAsked[i])));
    const Tally& t = o.rule[i];
    EXPECT_GE(t.Rate(t.covered), 0.93);
    EXPECT_LE(t.Rate(t.covered), 0.97);
    EXPECT_GE(t.Rate(t.answered), 0.7);  // mostly stopped by the rule, not the budget
  }
}

// An A/A pair is called different when the interval the rule stopped on excludes 0. 2,000
// studies: at a true 5 % the rate exceeds 6.2 % for fewer than 1 seed in 100 (5 % + 2.33 ·
// √(.05 · .95 / 2000)); the rule's was 3.9–4.8 %. The naive rule — stop at the first look (3
// blocks on) whose p50 interval excludes 0, else at 20 blocks — on the same studies: about 22 %,
// and below 15 % for fewer than 1 seed in 10^6 at 2,000 studies.
TEST(StoppingRuleSimulation, AnAaPairIsRarelyCalledDifferentAndTheNaiveRuleOftenIs) {
  Model m;
  m.mu_b = m.mu_a;
  const Outcome o = Simulate(m, ShippedRule(), kTargets, 2000, 12, 20);
  Report("aa", o);
  for (size_t i = 0; i < kAsked.size(); ++i) {
    SCOPED_TRACE(std::string(StatisticName(kAsked[i])));
    EXPECT_LE(o.rule[i].Rate(o.rule[i].different), 0.062);
  }
  const double naive = o.naive.Rate(o.naive.different);
  std::printf("aa, naive rule (p50): called different %.4f, blocks %.2f\n", naive,
              o.naive.MeanBlocks());
  RecordProperty("aa_naive_p50_different", std::to_string(naive));
  EXPECT_GE(naive, 0.15);
}

// ---- A study that chooses its trial length after a pilot ----

// PilotOutcome: the studies of SimulateWithPilot, per statistic — all of them, and those that
// switched — and how often they switched.
struct PilotOutcome {
  std::array<Tally, kAsked.size()> rule, after_switch;
  int studies = 0, switched = 0;
  std::array<int, kPlannedDurations.size()> chosen{};  // switches per length
  double seconds = 0;  // wall time of every study until all its statistics stopped
  double MeanSeconds() const { return seconds / studies; }
};

// SimulateWithPilot: as the runner does it (scenario/study_stop.h). Each study runs a pilot of
// min_blocks blocks of `pilot_s` trials, `rate` connections per second; at its first look,
// asking every statistic to its target at once, ChooseTrialLength decides. A switch starts a
// fresh stream at the chosen length (the pilot pooled nowhere, the block budget less the pilot);
// otherwise the pilot's stream goes on, and the choice to stay spends a degree of freedom as a
// stop does (study_stop.h's RuleLeft: staying selects pilots whose variance looked small). Then,
// as Simulate, each statistic is a study of its own on that stream; its blocks are counted with
// the pilot's.
// With `choose` false the study never switches (nor spends the choice's degree of freedom):
// the rule alone at the pilot's length, for the time the choice saves.
PilotOutcome SimulateWithPilot(Model m, double rate, double pilot_s, double overhead_s,
                               const StoppingRule& rule, const Targets& targets, int studies,
                               uint64_t seed, bool choose = true) {
  PilotOutcome out;
  std::vector<Question> all;
  for (size_t i = 0; i < kAsked.size(); ++i) {
    all.push_back({.other = 1, .statistic = kAsked[i], .precision = {.value = targets[i]}});
  }
  for (int k = 0; k < studies; ++k) {
    m.n = static_cast<size_t>(rate * pilot_s);
    Stream pilot(m, seed * 1'000'003 + static_cast<uint64_t>(k));
    while (pilot.blocks() < rule.min_blocks) pilot.AddBlock();
    // Two arms a block, each trial its length and its overhead.
    const auto block_s = [&](double d) { return 2 * (d + overhead_s); };
    const double pilot_elapsed = static_cast<double>(pilot.blocks()) * block_s(pilot_s);
    const Look first{.blocks = pilot.blocks(),
                     .elapsed_s = pilot_elapsed,
                     .trial_s = pilot_s,
                     .overhead_s = overhead_s};
    const Decision d = Decide(rule, all, pilot.Series(), first);
    std::optional<TrialLengthChoice> sw =
        d.stop() || !choose ? std::nullopt : ChooseTrialLength(d.answers, rule, first, 2);
    if (sw && !sw->switches(first)) sw.reset();
    ++out.studies;
    std::optional<Stream> fresh;
    StoppingRule r = rule;
    uint64_t before = 0;  // the pilot's blocks, when they do not pool
    double trial_s = pilot_s;
    if (sw) {
      ++out.switched;
      const auto* it =
          std::find(kPlannedDurations.begin(), kPlannedDurations.end(), sw->duration_s);
      ++out.chosen[static_cast<size_t>(it - kPlannedDurations.begin())];
      trial_s = sw->duration_s;
      m.n = static_cast<size_t>(rate * trial_s);
      fresh.emplace(m, (seed + 77) * 1'000'003 + static_cast<uint64_t>(k));
      if (r.max_blocks > 0) r.max_blocks -= pilot.blocks();
      if (r.max_seconds > 0) r.max_seconds -= pilot_elapsed;
      before = pilot.blocks();
    } else if (!d.stop() && choose) {
      r.spent_df += 1;
      r.min_blocks = std::max(r.min_blocks, pilot.blocks() + 1);
    }
    Stream& s = fresh ? *fresh : pilot;
    std::array<bool, kAsked.size()> done{};
    bool look_now = d.stop();  // the pilot's look stopped it: those are the answers
    while (std::find(done.begin(), done.end(), false) != done.end()) {
      if (!look_now) s.AddBlock();
      look_now = false;
      // After a switch the look and the budgets are the new study's (StudyStop::LookAt).
      const Look look{.blocks = s.blocks(),
                      .elapsed_s = static_cast<double>(s.blocks()) * block_s(trial_s),
                      .trial_s = trial_s};
      for (size_t i = 0; i < kAsked.size(); ++i) {
        if (done[i]) continue;
        const Decision one = Decide(r, std::span(&all[i], 1), s.Series(), look);
        if (!one.stop()) continue;
        done[i] = true;
        Count(out.rule[i], m, i, one, before + s.blocks());
        if (fresh) Count(out.after_switch[i], m, i, one, s.blocks());
      }
    }
    // The study ends with its last statistic.
    out.seconds += static_cast<double>(before) * block_s(pilot_s) +
                   static_cast<double>(s.blocks()) * block_s(trial_s);
  }
  return out;
}

// Five-second trials at 100 connections/s with half a second of overhead each, on this
// machine's shape (a trial's level varies by 10 %): one-second trials answer the mean and p50
// in about as many blocks for a quarter of the time, so most studies switch after their pilot,
// and the ones whose pilot looked precise stay. Either way the intervals must cover the truth:
// the choice rests on the pilot alone, and after a switch nothing of the pilot is pooled. Over
// four seeds (13–16) the coverage was 94.2–94.8 % (mean), 94.2–94.9 % (p50) and 95.1–95.4 %
// (p99); 2,000 studies make a failure of the 93–97 % bounds a chance of about 1 in 1,000 per
// statistic (as in IntervalsItStopsOnCoverTheTruth).
TEST(StoppingRuleSimulation, AStudyThatChoosesItsTrialLengthStillCoversTheTruth) {
  const Model m;
  // The shipped rule's budget as time: 30 blocks of five-second trials, 330 s. The p99 asked to
  // ±12 %, so that every statistic takes 14–20 blocks, where the rule alone covers 94–95 %
  // (methodology.md: its coverage moves with the looks a question takes): what is tested here
  // is the choice.
  const StoppingRule rule{.max_blocks = 1000, .max_seconds = 330};
  constexpr Targets kPilotTargets = {0.10, 0.10, 0.12};
  const PilotOutcome o = SimulateWithPilot(m, 100, 5, 0.5, rule, kPilotTargets, 2000, 13);
  Report("pilot", {.rule = o.rule, .naive = {}});
  for (size_t i = 0; i < kAsked.size(); ++i) {
    const Tally& f = o.after_switch[i];
    const Tally& t = o.rule[i];
    std::printf("pilot, %s: coverage %.4f after a switch, %.4f staying\n",
                std::string(StatisticName(kAsked[i])).c_str(), f.Rate(f.covered),
                static_cast<double>(t.covered - f.covered) / (t.studies - f.studies));
  }
  // The rule alone at five seconds, on 500 studies: what the choice saves.
  const PilotOutcome fixed = SimulateWithPilot(m, 100, 5, 0.5, rule, kPilotTargets, 500, 13, false);
  std::printf("pilot: a study took %.0f s choosing its length, %.0f s at 5 s trials\n",
              o.MeanSeconds(), fixed.MeanSeconds());
  RecordProperty("pilot_mean_seconds", std::to_string(o.MeanSeconds()));
  RecordProperty("fixed_mean_seconds", std::to_string(fixed.MeanSeconds()));
  EXPECT_LT(o.MeanSeconds(), fixed.MeanSeconds());
  std::printf("pilot: switched %d of %d studies;", o.switched, o.studies);
  for (size_t i = 0; i < kPlannedDurations.size(); ++i) {
    if (o.chosen[i] > 0) std::printf(" %gs %d", kPlannedDurations[i], o.chosen[i]);
  }
  std::printf("\n");
  RecordProperty("pilot_switched", std::to_string(o.switched));
  EXPECT_GE(o.switched, o.studies / 2) << "the model is one where switching pays";
  EXPECT_LT(o.switched, o.studies) << "and some pilots say staying is cheaper";
  for (size_t i = 0; i < kAsked.size(); ++i) {
    SCOPED_TRACE(std::string(StatisticName(kAsked[i])));
    const Tally& t = o.rule[i];
    EXPECT_EQ(t.studies, o.studies);
    EXPECT_GE(t.Rate(t.covered), 0.93);
    EXPECT_LE(t.Rate(t.covered), 0.97);
  }
}

}  // namespace
}  // namespace pqc
