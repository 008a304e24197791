// trial_length — the trial length that answers a study's questions soonest, from its first
// blocks. p50s need trials (their variance is mostly between trials, which longer trials do not
// shrink) and p99s need connections (their connections' own sampling is a large part), and all
// questions share the blocks, so the length is chosen for all of them at once: for each length
// the planner offers (trial_plan.h), the blocks that answer the slowest question, times what a
// block of that length costs. A study that changes its trial length after a pilot should not
// pool the pilot's blocks with the rest (trials of another length are another distribution of
// the per-trial effect): the advice is for the blocks that follow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "stats/stopping_rule.h"

namespace pqc {

struct TrialLengthAdvice {
  double duration_s = 0;  // the trial length (one of kPlannedDurations)
  uint64_t blocks = 0;    // blocks that answer every question at that length
  double total_s = 0;     // blocks × arms × (duration + overhead)
};

// AdviseTrialLength: from every question's answer at `look` (their between, within and target,
// measured with trials of look.trial_s), the length whose blocks answer them all in the least
// wall time; nullopt when a question has no variance yet, or none answers within
// kMaxPlannedTrials blocks at any length. `arms`: trials per block (≥ 1).
std::optional<TrialLengthAdvice> AdviseTrialLength(std::span<const Answer> answers,
                                                   const StoppingRule& rule, const Look& look,
                                                   size_t arms);

// TrialLengthChoice: how a study goes on after a pilot of look.blocks blocks at look.trial_s,
// within what is left of its budgets (rule.max_blocks and rule.max_seconds against look.blocks
// and look.elapsed_s). Two cases:
// * Some length answers every question within the budgets (`answerable`): the cheapest such
//   length from scratch (the pilot pooled nowhere) against staying, whose pilot blocks count
//   (`stay_s`: the time of the blocks still needed; none when staying would not answer within
//   the budgets). A switch must save at least a fifth (kSwitchShare): the advice rests on a few
//   blocks' variances, and a switch throws the pilot away.
// * None does: the budget will end the study, so the length that gets closest — the least
//   `reach`, the slowest question's predicted half-width over its target when the budgets are
//   spent — against staying's `stay_reach`, by the same fifth of the time (√kSwitchShare of
//   the half-width).
struct TrialLengthChoice {
  double duration_s = 0;  // the length to go on with; look.trial_s: stay
  bool answerable = false;
  uint64_t blocks = 0;  // at duration_s: to answer (or the budget's), from scratch after a switch
                        // and in all when staying
  double total_s = 0;   // the wall time of those beyond the pilot
  std::optional<double> stay_s;
  double reach = 0, stay_reach = 0;  // not answerable: half-width / target at the budgets' end
  bool switches(const Look& look) const { return duration_s != look.trial_s; }
};

// kSwitchShare: a switch must cost at most this share of staying.
inline constexpr double kSwitchShare = 0.8;

// ChooseTrialLength: the choice above (a switch only to a length of which the budgets left hold
// min_blocks blocks); nullopt when a question has no variance yet, so nothing can be said.
std::optional<TrialLengthChoice> ChooseTrialLength(std::span<const Answer> answers,
                                                   const StoppingRule& rule, const Look& look,
                                                   size_t arms);

}  // namespace pqc
