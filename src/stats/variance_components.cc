#include "stats/variance_components.h"

#include <algorithm>
#include <cmath>

#include "stats/normal.h"

namespace pqc {

double ChiSquareQuantile(double p, int k) {
  if (!(p > 0 && p < 1) || k < 1) return Interval::kUndefined;
  return ChiSquareQuantileDf(p, k);
}

double ChiSquareQuantileDf(double p, double k) {
  if (!(p > 0 && p < 1) || !(k > 0) || !std::isfinite(k)) return Interval::kUndefined;
  if (k == 1) {
    const double z = NormalQuantile(0.5 + p / 2);
    return z * z;
  }
  if (k == 2) return -2 * std::log(1 - p);
  const double kd = k;
  const double a = 2 / (9 * kd);
  const double c = 1 - a + NormalQuantile(p) * std::sqrt(a);
  return kd * c * c * c;
}

double DisagreementThreshold(Statistic statistic, size_t trials) {
  if (trials < 2) return Interval::kUndefined;
  double nu = static_cast<double>(trials - 1);
  if (statistic != Statistic::kMean) nu = nu / (1 + nu / 14);
  return ChiSquareQuantileDf(0.95, nu) / nu;
}

VarianceComponents ComponentsOf(double total, double within, size_t trials, size_t connections,
                                Statistic statistic) {
  VarianceComponents out;
  out.trials = trials;
  out.connections = connections;
  if (!std::isfinite(total) || !std::isfinite(within) || within <= 0 || trials < 2 ||
      connections < trials) {
    return out;
  }
  const double u = static_cast<double>(trials);
  const double n = static_cast<double>(connections);
  out.total = total;
  out.within = within;
  out.design_effect = total / within;
  const double per_trial = n / u;
  out.variance_ratio = std::max(0.0, (out.design_effect - 1) / per_trial);
  out.icc = out.variance_ratio / (1 + out.variance_ratio);
  out.effective_connections = n / (1 + (per_trial - 1) * out.icc);
  out.within_per_trial = u * within;
  out.between_per_trial = std::max(0.0, u * (total - within));
  out.trials_disagree = out.design_effect > DisagreementThreshold(statistic, trials);
  return out;
}

}  // namespace pqc
