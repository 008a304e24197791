// outlier_trials — a trial that disagrees wildly with its siblings (one trial's p99 at 39 ms
// when the others' are at 2 ms: a noisy neighbour, a swap storm) is flagged, so a report shows
// it instead of silently pooling it into the arm's numbers. Flagging, not removing: whether to
// rerun or drop the trial is the user's call, made visibly.
//
// The rule, for each trial i with a defined value v_i, against the median m and the scaled
// median absolute deviation s = 1.4826·MAD of the *other* trials' values (robust: the outlier
// itself cannot inflate the yardstick it is measured with; 1.4826 makes s estimate σ for
// normal data), flag i when both
//   |v_i − m| > mad_factor · s      (far compared with how much the others vary), and
//   |v_i − m| > relative · |m|      (far in absolute terms: trials that agree to 1 % have a tiny
//                                    MAD, and a 3 % deviation is not worth a flag).
// Few trials:
//   * 1 trial (or none): nothing to compare with, nothing flagged.
//   * 2 trials: neither can be called the outlier, and the MAD of one value is 0. When they
//     differ by more than relative × the smaller |value|, both are flagged with a reason that
//     says they disagree.
//   * 3 trials: the others are two values; s = 1.4826·|a − b|/2 and m their mean, so one trial
//     far from two agreeing ones is flagged, and a trial between the two is not.
// Trials whose statistic is undefined (empty) are ignored: they are neither flagged nor
// counted among the others.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "stats/statistic.h"
#include "stats/trial_spread.h"

namespace pqc {

// OutlierOptions: valid when mad_factor ≥ 0 and relative ≥ 0.
struct OutlierOptions {
  double mad_factor = 5.0;
  double relative = 0.5;
};

// OutlierTrial: trial index (in the input order), its value, the others' median and a reason
// in words ("p99 39012 is 19.5× the median 2001 of the other 3 trials (off by …)").
struct OutlierTrial {
  size_t trial = 0;
  double value = Interval::kUndefined;
  double others_median = Interval::kUndefined;
  std::string reason;
};

// FindOutlierTrials: the flagged trials in ascending trial order (empty when none).
std::vector<OutlierTrial> FindOutlierTrials(const TrialSpread& spread, Statistic statistic,
                                            const OutlierOptions& options = {});
std::vector<OutlierTrial> FindOutlierTrials(const TrialSamples& trials, Statistic statistic,
                                            const OutlierOptions& options = {});

}  // namespace pqc
