// variance_components — how the variance of a pooled statistic splits between trials and the
// connections within them, so a report can say plainly when trials disagree more than their
// connections do, and so a plan (trial_plan.h) can spend time where the variance is. Two
// variances of the same estimate are compared: `total`, over whole trials (the jackknife of
// trial_jackknife.h, which holds every level), and `within`, from the connections alone (the
// stratified bootstrap of bootstrap.h, which resamples inside each trial). Their ratio is the
// design effect of survey statistics (Kish): how many times the connection-only variance
// understates the truth; N / design effect is the number of independent connections the
// study is worth. For a mean, (design effect − 1)/(n̄ − 1) is the intra-class correlation of
// a one-way random-effects model (the share of one connection's variance that lies between
// trials); the same formula is reported for percentiles, as their analogue.
#pragma once

#include <cstddef>

#include "stats/statistic.h"

namespace pqc {

struct VarianceComponents {
  double total = Interval::kUndefined;          // variance of the estimate over trials (all levels)
  double within = Interval::kUndefined;         // its variance from connections alone
  double design_effect = Interval::kUndefined;  // total / within
  double icc = Interval::kUndefined;            // in [0, 1]
  double effective_connections = Interval::kUndefined;  // N / max(design effect, 1)
  // Per trial of the mean length: the variance of one trial's statistic from its own
  // connections, and the part beyond it that trials add (≥ 0).
  double within_per_trial = Interval::kUndefined;
  double between_per_trial = Interval::kUndefined;
  // trials_disagree: the design effect lies above the 95 % point of its distribution when
  // trials differ only by their connections' sampling (χ²_{U−1}/(U−1)): a between-trial
  // component is there, beyond chance.
  bool trials_disagree = false;
  size_t trials = 0, connections = 0;
};

// ComponentsOf: from the two variances of one estimate over `trials` replicate units holding
// `connections` samples. Fields stay NaN where an input is missing, not finite, or within ≤ 0.
VarianceComponents ComponentsOf(double total, double within, size_t trials, size_t connections);

// ChiSquareQuantile: the p-quantile of χ² with k degrees of freedom (k ≥ 1, 0 < p < 1):
// exact for k = 1 and 2, Wilson–Hilferty's cube-root normal approximation above (relative
// error under 1 % for k ≥ 3 at p = 0.95). NaN outside the domain.
double ChiSquareQuantile(double p, int k);

}  // namespace pqc
