// run_difference — the difference between two sides of several runs each (`compare A1 A2
// --against B1 B2`), with the run as a level of the model: trials within runs, runs within a
// side. The old way took each side's runs as its replicates with Welch–Satterthwaite degrees of
// freedom floored to an integer: 1 with two runs per side (t = 12.7), and a 5 % gate that
// failed on 1 % of +10 % regressions.
//
// The model, per side s with R_s runs: run r's statistic θ_r = θ_s + run effect (the machine's
// drift between runs, variance ρ) + its trials' error (variance w_r, which its own interval
// over trials measures, trial_jackknife.h). The run effect is the machine's, not the build's,
// so its variance is the same on both sides and is pooled over them:
//   MS = Σ_s Σ_r (θ_r − θ̄_s)² / Σ_s (R_s − 1),   V = MS · Σ_s 1/R_s,   df = Σ_s (R_s − 1),
// MS estimating ρ + w̄ (every level below the run is in a run's statistic). Under the model the
// interval is exact (a pooled two-sample t): 2 degrees of freedom with two runs per side
// (t = 4.30), where the old way had 1. Tried and rejected (tests/run_level_test.cc, the
// simulation): taking the trials' degrees of freedom when the runs disagree no more than their
// trials explain (ρ̂ truncated at 0) covered 92 % at a run SD of 5 % with two runs per side —
// two runs cannot tell a small drift from none. The trials enter as the floor: the interval is
// never narrower than the connections imply (the runs' floors, as in trial_jackknife.h).
// One run per side gives Welch's interval over the two runs' trials (real degrees of freedom),
// which leaves the drift between the runs out (nothing estimates it): `drift_in_interval` is
// false, and the output says so.
#pragma once

#include <span>

#include "stats/trial_jackknife.h"

namespace pqc {

// RunsInterval: the difference with its interval; drift_in_interval when ρ was estimable (a
// side with two runs or more).
struct RunsInterval {
  UnitInterval difference;
  bool drift_in_interval = false;
};

// RunsDifference: estimate_b − estimate_a (the sides' own pooled estimates, as printed), its
// variance and interval from the runs (`a_runs`, `b_runs`: one UnitInterval per run: its
// estimate, and its variance, df and floor_variance over its own trials). With two runs or more
// on either side, the runs' spread (above); a side of one run then counts with the pooled run
// variance. With one run per side, the runs' own variances (Welch); a run of one trial (no
// variance) then leaves no interval. Preconditions: 0 < confidence < 1.
RunsInterval RunsDifference(double estimate_a, std::span<const UnitInterval> a_runs,
                            double estimate_b, std::span<const UnitInterval> b_runs,
                            double confidence = 0.95);

// RunOfValues: one run's quantity measured once per trial (CPU per handshake) as a run-level
// estimate: the trials' mean, its variance s²/n over n − 1 degrees of freedom, and the floor
// `floor_variance`/n (one value's measurement resolution). NaN values are skipped; fewer than
// two values give the mean and no variance.
UnitInterval RunOfValues(std::span<const double> values, double floor_variance,
                         double confidence = 0.95);

}  // namespace pqc
