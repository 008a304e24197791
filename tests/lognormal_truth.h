// The true statistics of the simulations' latencies: log(latency) is a sum of normal effects
// (level, run, block, trial, connection), so the pooled latency is lognormal and its mean and
// quantiles are known in closed form, the truth a simulated interval must cover.
#pragma once

#include <cmath>
#include <cstddef>
#include <initializer_list>

#include "stats/normal.h"
#include "stats/statistic.h"

namespace pqc {

// LognormalSigma: the SD of a sum of independent normal effects with these SDs.
inline double LognormalSigma(std::initializer_list<double> sds) {
  double variance = 0;
  for (double sd : sds) variance += sd * sd;
  return std::sqrt(variance);
}

// LognormalTruth: statistic s of exp(N(log mu, sigma²)).
inline double LognormalTruth(double mu, double sigma, Statistic s) {
  if (s == Statistic::kMean) return mu * std::exp(sigma * sigma / 2);
  return mu * std::exp(NormalQuantile(StatisticQuantile(s)) * sigma);
}

// PairedArmsModel: a study of arms a and b paired by block, `n` connections per trial:
// log(latency) = log(μ_arm) + block effect (shared by the arms) + trial effect (own) +
// connection noise, all normal, so every arm's pooled latency is lognormal with σ² the sum and
// its true statistics are known in closed form.
struct PairedArmsModel {
  double mu_a = 1000, mu_b = 1150;
  double sigma_within = 0.3, sigma_trial = 0.08, sigma_block = 0.08;
  size_t n = 400;

  double Truth(double mu, Statistic s) const {
    return LognormalTruth(mu, LognormalSigma({sigma_within, sigma_trial, sigma_block}), s);
  }
  double TrueDifference(Statistic s) const { return Truth(mu_b, s) - Truth(mu_a, s); }
};

}  // namespace pqc
