// trial_spread — how much an arm's trials disagree, in the plainest form: each trial's own
// value of the statistic, and the range. The intervals (trial_jackknife.h) already carry this
// variance; the spread shows it as numbers a reader can check trial by trial.
#pragma once

#include <vector>

#include "stats/pooled_samples.h"
#include "stats/statistic.h"

namespace pqc {

// TrialSpread: per_trial[i] is the statistic of trial i alone (NaN for an empty trial); min
// and max are over the defined values (NaN when none is).
struct TrialSpread {
  std::vector<double> per_trial;
  double min = Interval::kUndefined;
  double max = Interval::kUndefined;
};

// SpreadBetweenTrials: the statistic of each trial. NaN samples are skipped, as in
// PooledSamples. The TrialSamples overload sorts a copy of each trial; the PooledSamples one
// reads each trial's order statistics off the pooled order in one O(N) pass, so a report that
// already prepared the arm for its intervals sorts nothing again. Both give the same values
// (per-trial means may differ in the last bits: they are summed in another order).
TrialSpread SpreadBetweenTrials(const TrialSamples& trials, Statistic statistic);
TrialSpread SpreadBetweenTrials(const PooledSamples& pooled, Statistic statistic);

}  // namespace pqc
