#include "stats/variance_components.h"

#include <algorithm>
#include <cmath>

#include "stats/normal.h"

namespace pqc {

double ChiSquareQuantile(double p, int k) {
  if (!(p > 0 && p < 1) || k < 1) return Interval::kUndefined;
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

VarianceComponents ComponentsOf(double total, double within, size_t trials, size_t connections) {
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
  out.icc = per_trial > 1 ? std::clamp((out.design_effect - 1) / (per_trial - 1), 0.0, 1.0) : 0.0;
  out.effective_connections = n / std::max(out.design_effect, 1.0);
  out.within_per_trial = u * within;
  out.between_per_trial = std::max(0.0, u * (total - within));
  const int df = static_cast<int>(trials) - 1;
  out.trials_disagree = out.design_effect > ChiSquareQuantile(0.95, df) / df;
  return out;
}

}  // namespace pqc
