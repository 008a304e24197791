#include "stats/trial_length.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/student_t.h"

namespace pqc {

namespace {

// Budget: what is left of a study's budgets after `look`.
struct Budget {
  uint64_t blocks = kMaxPlannedTrials;
  double seconds = std::numeric_limits<double>::infinity();
  // BlocksOf: the most blocks of `block_s` each that fit.
  uint64_t BlocksOf(double block_s) const {
    if (!std::isfinite(seconds)) return blocks;
    const double fit = std::floor(std::max(0.0, seconds) / block_s);
    return std::min<uint64_t>(blocks, static_cast<uint64_t>(std::min(fit, 1e9)));
  }
};

// BudgetLeft: with a block budget alone, the time the blocks left would take at this length —
// else longer trials would be free, and "closest" would pick the longest. Without either,
// kMaxPlannedTrials blocks of any length.
Budget BudgetLeft(const StoppingRule& rule, const Look& look, double block_s) {
  Budget b;
  if (rule.max_blocks > 0) {
    b.blocks = rule.max_blocks > look.blocks ? rule.max_blocks - look.blocks : 0;
  }
  if (rule.max_seconds > 0) {
    b.seconds = rule.max_seconds - look.elapsed_s;
  } else if (rule.max_blocks > 0) {
    b.seconds = static_cast<double>(b.blocks) * block_s;
  }
  return b;
}

// BlocksToAnswer: the blocks that answer every question with trials of `d` (the slowest's).
std::optional<uint64_t> BlocksToAnswer(std::span<const Answer> answers, const StoppingRule& rule,
                                       const Look& look, double d) {
  uint64_t blocks = 0;
  for (const Answer& a : answers) {
    const std::optional<uint64_t> needed = TrialsAt(PlanInputOf(a, rule, look), d);
    if (!needed) return std::nullopt;
    blocks = std::max(blocks, *needed);
  }
  return blocks;
}

}  // namespace

std::optional<TrialLengthAdvice> AdviseTrialLength(std::span<const Answer> answers,
                                                   const StoppingRule& rule, const Look& look,
                                                   size_t arms) {
  if (answers.empty() || arms == 0) return std::nullopt;
  std::optional<TrialLengthAdvice> best;
  for (double d : kPlannedDurations) {
    const std::optional<uint64_t> blocks = BlocksToAnswer(answers, rule, look, d);
    if (!blocks) continue;
    const double total = static_cast<double>(*blocks * arms) * (d + look.overhead_s);
    if (!best || total < best->total_s) best = TrialLengthAdvice{d, *blocks, total};
  }
  return best;
}

namespace {

// Reach: the slowest question's judged half-width over its target after `blocks` blocks of `d`
// (its variance per block between + within · trial_s / d, t on blocks − 1 − spent).
double Reach(std::span<const Answer> answers, const StoppingRule& rule, const Look& look, double d,
             uint64_t blocks) {
  const double df = static_cast<double>(blocks) - 1 - rule.spent_df;
  if (df < 1) return std::numeric_limits<double>::infinity();
  const double t = StudentTQuantileDf(rule.confidence, df);
  double worst = 0;
  for (const Answer& a : answers) {
    const double v = a.between + a.within * look.trial_s / d;
    worst = std::max(worst, t * std::sqrt(v / static_cast<double>(blocks)) / a.target);
  }
  return worst;
}

bool Known(const Answer& a) {
  return std::isfinite(a.between) && std::isfinite(a.within) && a.between >= 0 && a.within >= 0 &&
         a.target > 0;
}

}  // namespace

std::optional<TrialLengthChoice> ChooseTrialLength(std::span<const Answer> answers,
                                                   const StoppingRule& rule, const Look& look,
                                                   size_t arms) {
  if (answers.empty() || arms == 0 || !(look.trial_s > 0)) return std::nullopt;
  if (!std::all_of(answers.begin(), answers.end(), Known)) return std::nullopt;
  const auto block_s = [&](double d) { return static_cast<double>(arms) * (d + look.overhead_s); };
  const Budget left = BudgetLeft(rule, look, block_s(look.trial_s));
  TrialLengthChoice stay{.duration_s = look.trial_s};
  if (const auto all = BlocksToAnswer(answers, rule, look, look.trial_s)) {
    const uint64_t more = *all > look.blocks ? *all - look.blocks : 0;
    if (more <= left.BlocksOf(block_s(look.trial_s))) {
      stay.answerable = true;
      stay.blocks = *all;
      stay.total_s = static_cast<double>(more) * block_s(look.trial_s);
      stay.stay_s = stay.total_s;
    }
  }
  // The cheapest length that answers from scratch within the budgets left.
  std::optional<TrialLengthChoice> best;
  for (double d : kPlannedDurations) {
    if (d == look.trial_s) continue;
    const uint64_t room = left.BlocksOf(block_s(d));
    const std::optional<uint64_t> blocks = BlocksToAnswer(answers, rule, look, d);
    if (!blocks || room < rule.min_blocks || *blocks > room) continue;
    const double total = static_cast<double>(*blocks) * block_s(d);
    if (!best || total < best->total_s) {
      best = TrialLengthChoice{
          .duration_s = d, .answerable = true, .blocks = *blocks, .total_s = total};
    }
  }
  if (stay.answerable || best) {
    if (best && (!stay.answerable || best->total_s < kSwitchShare * *stay.stay_s)) {
      best->stay_s = stay.stay_s;
      return best;
    }
    if (!stay.answerable) return best;
    return stay;
  }
  // No length answers within the budgets: the one that gets closest by their end.
  const uint64_t stay_more = left.BlocksOf(block_s(look.trial_s));
  stay.blocks = look.blocks + stay_more;
  stay.total_s = static_cast<double>(stay_more) * block_s(look.trial_s);
  stay.stay_reach = stay.reach = Reach(answers, rule, look, look.trial_s, stay.blocks);
  std::optional<TrialLengthChoice> closest;
  for (double d : kPlannedDurations) {
    if (d == look.trial_s) continue;
    const uint64_t room = left.BlocksOf(block_s(d));
    if (room < rule.min_blocks) continue;
    const double reach = Reach(answers, rule, look, d, room);
    if (!closest || reach < closest->reach) {
      closest = TrialLengthChoice{.duration_s = d,
                                  .blocks = room,
                                  .total_s = static_cast<double>(room) * block_s(d),
                                  .reach = reach,
                                  .stay_reach = stay.reach};
    }
  }
  if (closest && closest->reach < std::sqrt(kSwitchShare) * stay.reach) return closest;
  return stay;
}

}  // namespace pqc
