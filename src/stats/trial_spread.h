// trial_spread — how much an arm's trials disagree. The bootstrap interval (bootstrap.h)
// resamples within trials, so it says how precisely the trials measured the arm, not whether
// a new trial would agree; this says the latter, in the plainest form: each trial's own value
// of the statistic, and the range.
#pragma once

#include <vector>

#include "stats/statistic.h"

namespace pqc {

// TrialSpread: per_trial[i] is the statistic of trial i alone (NaN for an empty trial); min
// and max are over the defined values (NaN when none is).
struct TrialSpread {
  std::vector<double> per_trial;
  double min = Interval::kUndefined;
  double max = Interval::kUndefined;
};

// SpreadBetweenTrials: the statistic of each trial (in any order; copies are sorted).
// Preconditions: no NaN among the samples.
TrialSpread SpreadBetweenTrials(const TrialSamples& trials, Statistic statistic);

}  // namespace pqc
