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

// TrialLengthSwitch: a study that should go on at another trial length, after a pilot of
// look.blocks blocks at look.trial_s: what the rest costs at the advised length (from scratch:
// the pilot does not pool) and what it would cost to stay (the pilot's blocks counted).
struct TrialLengthSwitch {
  TrialLengthAdvice advice;
  std::optional<double> stay_s;  // the blocks still needed at look.trial_s; none: out of reach
};

// kSwitchShare: a switch must save at least a fifth of what staying would cost — the advice
// rests on a few blocks' variances, and a switch throws the pilot's blocks away.
inline constexpr double kSwitchShare = 0.8;

// SwitchTrialLength: whether the study should go on at another length: the advised one
// (AdviseTrialLength) differs from look.trial_s and costs less than kSwitchShare × staying,
// or staying is out of reach and it is not. nullopt: stay.
std::optional<TrialLengthSwitch> SwitchTrialLength(std::span<const Answer> answers,
                                                   const StoppingRule& rule, const Look& look,
                                                   size_t arms);

}  // namespace pqc
