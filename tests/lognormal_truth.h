// The true statistics of the simulations' latencies: log(latency) is a sum of normal effects
// (level, run, block, trial, connection), so the pooled latency is lognormal and its mean and
// quantiles are known in closed form, the truth a simulated interval must cover.
#pragma once

#include <cmath>
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

}  // namespace pqc
