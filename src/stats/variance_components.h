// variance_components — how the variance of a pooled statistic splits between trials and the
// connections within them, so a report can say plainly when trials disagree more than their
// connections do, and so a plan (trial_plan.h) can spend time where the variance is. Two
// variances of the same estimate are compared: `total`, over whole trials (the jackknife of
// trial_jackknife.h, which holds every level), and `within`, from the connections alone (the
// stratified bootstrap of bootstrap.h, which resamples inside each trial). Their ratio is the
// design effect of survey statistics (Kish): how many times the connection-only variance
// understates the truth; N / design effect is the number of independent connections the
// study is worth. The connection-only variance is the stratified one (within each trial), so
// for a mean of n̄ connections per trial the design effect is 1 + n̄·r with r = σ²_between /
// σ²_within: r = (design effect − 1)/n̄ is the ratio of the two components, the intra-class
// correlation (the share of one connection's variance that lies between trials) is
// ICC = r/(1 + r) — not (design effect − 1)/(n̄ − 1), which is about r = ICC/(1 − ICC) — and
// the independent connections the study is worth are N/(1 + (n̄ − 1)·ICC) (Kish's design
// effect against simple random sampling, = N·(1 + r)/design effect). The same formulas are
// reported for percentiles, as their analogue.
//
// "Trials disagree": the design effect above the 95 % point of its distribution when trials
// differ only by their connections' sampling. For a mean that distribution is χ²_{U−1}/(U−1).
// For a percentile the jackknife over U trials is noisier than for a mean (a quantile moves in
// steps) — with the mean's threshold a p50 over 15 trials of identical machines "disagreed"
// 10 % of the time, not 5 %. Simulated (1,500 studies per U, 400 connections per trial), its
// 95 % point is that of χ²_ν/ν with ν = (U − 1)/(1 + (U − 1)/14) (2 → 1.75, 7 → 4.7, 14 → 7.0
// degrees of freedom): false alarms 4.1, 4.1 and 4.5 % at U = 3, 8 and 15 (the constant 18
// gave 4.2, 4.4 and 5.2 %; 10 gave 3.9, 3.4, 3.3 %). tests/two_level_test.cc checks them.
#pragma once

#include <cstddef>

#include "stats/statistic.h"

namespace pqc {

struct VarianceComponents {
  double total = Interval::kUndefined;          // variance of the estimate over trials (all levels)
  double within = Interval::kUndefined;         // its variance from connections alone
  double design_effect = Interval::kUndefined;  // total / within
  double variance_ratio = Interval::kUndefined;         // r = σ²_between / σ²_within (≥ 0)
  double icc = Interval::kUndefined;                    // r / (1 + r), in [0, 1)
  double effective_connections = Interval::kUndefined;  // N / (1 + (n̄ − 1)·ICC), ≤ N
  // Per trial of the mean length: the variance of one trial's statistic from its own
  // connections, and the part beyond it that trials add (≥ 0).
  double within_per_trial = Interval::kUndefined;
  double between_per_trial = Interval::kUndefined;
  // trials_disagree: the design effect lies above the 95 % point of its distribution when
  // trials differ only by their connections' sampling (DisagreementThreshold): a between-trial
  // component is there, beyond chance.
  bool trials_disagree = false;
  size_t trials = 0, connections = 0;
};

// ComponentsOf: from the two variances of one estimate of `statistic` over `trials` replicate
// units holding `connections` samples. Fields stay NaN where an input is missing, not finite,
// or within ≤ 0.
VarianceComponents ComponentsOf(double total, double within, size_t trials, size_t connections,
                                Statistic statistic = Statistic::kMean);

// DisagreementThreshold: the 95 % point of the design effect over `trials` units (≥ 2) without
// a trial effect: χ²_ν(0.95)/ν, ν = U − 1 for a mean, (U − 1)/(1 + (U − 1)/14) for a percentile.
double DisagreementThreshold(Statistic statistic, size_t trials);

// ChiSquareQuantile: the p-quantile of χ² with k degrees of freedom (k ≥ 1, 0 < p < 1):
// exact for k = 1 and 2, Wilson–Hilferty's cube-root normal approximation above (relative
// error under 1 % for k ≥ 3 at p = 0.95). NaN outside the domain.
double ChiSquareQuantile(double p, int k);
// ChiSquareQuantileDf: the same for real k > 0 (Wilson–Hilferty; exact for k = 1 and 2).
double ChiSquareQuantileDf(double p, double k);

}  // namespace pqc
