// stopping_rule — a study that adds blocks (every arm once per block, paired by block) until
// each of its questions is answered to the precision asked for, or its budget is spent. On this
// machine trials disagree 30–90 × more than their connections, so how many blocks an answer
// needs is known only once the first blocks show how much they disagree; a study of fixed size
// is either too short ("no difference detectable above ±3 ms") or longer than it needed to be.
//
// The rule stops on precision — every question's half-width within its target at the same look
// — never on significance: stopping at the first look whose interval excludes 0 is a test
// repeated at every look, and an A/A pair is then called different far more often than 5 %
// (tests/stopping_rule_test.cc shows it). Precision says nothing about where the interval lies,
// but stopping on it selects a *variance* that happens to be small, so the intervals a plain
// precision rule stops on are too narrow: in simulation they covered 91–92.5 % (mean, p50) and
// 86 % (p99). Three guards, each proven by the simulation (docs/methodology.md, "A study that
// stops itself"):
// * The stop spends a degree of freedom: the judged interval uses t on U − 2, not U − 1
//   (a study of U blocks), and there is no look before `min_blocks` (4), so the first look
//   has a t of 2 degrees of freedom and stops only a study far more precise than asked.
// * An answered question reports estimate ± target, the precision that was asked and judged,
//   not the narrower interval computed at the stop (which is narrow because the stop selected
//   it); the fixed-width intervals of Chow & Robbins (1965).
// * Tail percentiles (p95, p99) judge the larger of two variances: the jackknife's and the
//   spread of the blocks' own differences (block_differences.h), because the pooled tail's
//   jackknife is small exactly when its estimate is low.
// Budget stops report the computed interval (nothing selected it small). What is left: the
// more looks a question takes, the more chances a small variance has to be selected — at about
// 20 blocks the mean and p50 covered 93.5–94 % (methodology.md has the table). A relative target
// (± x % of the baseline arm's statistic) scales with the level, as a multiplicative effect's
// half-width does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "stats/pooled_samples.h"
#include "stats/statistic.h"
#include "stats/trial_jackknife.h"
#include "stats/trial_plan.h"

namespace pqc {

// Precision: the widest half-width a question accepts: `value` × |the baseline arm's
// statistic| (relative: 0.02 is ±2 %), or `value` in the statistic's unit (absolute, µs).
struct Precision {
  enum class Kind { kRelative, kAbsolute };
  Kind kind = Kind::kRelative;
  double value = 0.02;
};

// Question: statistic(other) − statistic(baseline) in one phase, the two arms paired by block
// (a one-factor comparison). Arms and phases are numbered by the caller.
struct Question {
  size_t baseline = 0;
  size_t other = 0;
  size_t phase = 0;
  Statistic statistic = Statistic::kP50;
  Precision precision;
};

// Series: one arm's samples of one phase so far (never null), and the block of each of its
// input trials (a trial per block; an invalid trial is an empty one, or absent).
struct Series {
  const PooledSamples* samples = nullptr;
  Units blocks;
};

// SeriesOf: the caller's series of (arm, phase), valid for the duration of one Decide call.
using SeriesOf = std::function<Series(size_t arm, size_t phase)>;

// StoppingRule: the study's rule and budget (ValidRule says when it is valid). A budget of 0
// is no budget; without either budget the study ends when answered. Looks come after every
// block from min_blocks on: a look costs milliseconds (bench/stopping_rule_bench.cc), a block
// seconds, and a sparser schedule (Pinpoint doubles: 10, 20, 40) overshoots the blocks needed.
struct StoppingRule {
  uint64_t min_blocks = 4;   // no look before this many complete blocks (≥ 3)
  uint64_t max_blocks = 0;   // budget in blocks (0, or ≥ min_blocks)
  double max_seconds = 0;    // budget in wall time (≥ 0)
  double confidence = 0.95;  // of every question's interval, two-sided (0, 1)
  double min_tail = 5;       // as UnitOptions: p99 needs 500 samples per arm for an interval
  // spent_df: the degrees of freedom a stop spends (above), 0 ≤ spent_df < min_blocks − 1.
  double spent_df = 1;
};

bool ValidRule(const StoppingRule& rule);

// Look: where the study stands after a block.
struct Look {
  uint64_t blocks = 0;    // complete blocks so far
  double elapsed_s = 0;   // the wall time they took, every overhead included
  double trial_s = 0;     // the measured length of one trial (the planner's unit)
  double overhead_s = 0;  // what a trial costs beyond its measured phase (warm-up, restart)
};

// AnswerState: kAnswered — the half-width is within the target at this look; kOpen — not yet,
// the study goes on; kUnanswered — not, and the study stopped (its budget is spent).
enum class AnswerState { kAnswered, kOpen, kUnanswered };

// Answer: one question at one look. `difference` is the interval reported: estimate ± target
// once answered, else the computed one, whose half-width is `half_width` (the one judged
// against `target`, with the stop's t and variance, above); `between` and `within` are one block's
// variance of the difference beyond its connections and from them (variance_components.h), which
// the planner turns into what would answer the question; NaN where there is no interval yet.
struct Answer {
  UnitInterval difference;
  double baseline = Interval::kUndefined;    // the baseline arm's statistic
  double target = Interval::kUndefined;      // the half-width accepted, in the statistic's unit
  double half_width = Interval::kUndefined;  // of the computed interval, the one judged
  double between = Interval::kUndefined;
  double within = Interval::kUndefined;
  AnswerState state = AnswerState::kOpen;
  // Unanswered (PlanAnswer): the blocks in all (done ones included) that the planner says
  // would bring the half-width within the target at this trial length, and the cheapest plan
  // at any length; nullopt when the variance is unknown or more than kMaxPlannedTrials would be
  // needed.
  std::optional<uint64_t> blocks_needed;
  std::optional<TrialPlan> cheapest;
};

// StopReason: why the study stops after this look (kContinue: it does not).
// kInvalidRule: the rule is not valid (ValidRule); nothing was judged.
enum class StopReason { kContinue, kAnswered, kBlockBudget, kTimeBudget, kInvalidRule };

struct Decision {
  StopReason reason = StopReason::kContinue;
  std::vector<Answer> answers;  // one per question, in order
  bool stop() const { return reason != StopReason::kContinue; }
};

// Decide: every question's answer after `look.blocks` blocks, and whether the study stops: all
// answered (at this same look: an answer narrowed earlier may widen again), or the next block
// would exceed a budget (the time budget: elapsed + the mean block so far > max_seconds).
// Before min_blocks the study always continues, budgets or not (answers open, their intervals
// as computed). No questions: answered at the first look.
// Cost: the paired jackknife of every question, O(U · log N · (64 + U)) per percentile.
Decision Decide(const StoppingRule& rule, std::span<const Question> questions,
                const SeriesOf& series, const Look& look);

// PlanAnswer: fills a's blocks_needed and cheapest from its between, within and target —
// precision alone (TrialPlanInput's power 0.5). Decide does it for the answers it leaves
// unanswered; live progress may call it for open ones (it costs about a millisecond: the
// planner solves hundreds of t quantiles).
void PlanAnswer(const StoppingRule& rule, const Look& look, Answer& a);

// PlanInputOf: the planner's input for answer a: its variances per block, measured with trials
// of look.trial_s, its target as the half-width to resolve, precision alone.
TrialPlanInput PlanInputOf(const Answer& a, const StoppingRule& rule, const Look& look);

// AnswerOf: one question's answer from its two series (state kAnswered or kOpen).
Answer AnswerOf(const StoppingRule& rule, const Question& question, const Series& baseline,
                const Series& other);

}  // namespace pqc
