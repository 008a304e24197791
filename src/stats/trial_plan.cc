#include "stats/trial_plan.h"

#include <cmath>

#include "stats/normal.h"
#include "stats/student_t.h"

namespace pqc {
namespace {

// TwoSidedT: StudentTQuantile, exact up to 30 degrees of freedom; above, the Cornish–Fisher
// expansion around the normal quantile (error below 1e-4 there), because the exact series
// costs O(df) per evaluation and a plan evaluates hundreds of quantiles up to df 999.
double TwoSidedT(double central, int df) {
  if (df <= 30) return StudentTQuantile(central, df);
  const double z = NormalQuantile(0.5 + central / 2);
  const double z3 = z * z * z, z5 = z3 * z * z, n = df;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n);
}

// Resolves: whether `trials` blocks of `duration` resolve the input's difference.
bool Resolves(const TrialPlanInput& in, uint64_t trials, double duration) {
  const double per_block = in.between + in.within * in.duration_s / duration;
  const int df = static_cast<int>(trials) - 1;
  const double beta = in.power > 0.5 ? TwoSidedT(2 * in.power - 1, df) : 0.0;
  const double t = TwoSidedT(in.confidence, df) + beta;
  return t * std::sqrt(per_block / static_cast<double>(trials)) <= in.resolve;
}

bool Valid(const TrialPlanInput& in) {
  return std::isfinite(in.between) && std::isfinite(in.within) && in.between >= 0 &&
         in.within >= 0 && in.duration_s > 0 && std::isfinite(in.duration_s) &&
         in.overhead_s >= 0 && std::isfinite(in.overhead_s) && in.resolve > 0 &&
         std::isfinite(in.resolve) && in.confidence > 0 && in.confidence < 1 && in.power >= 0.5 &&
         in.power < 1;
}

// LeastTrials: the condition is monotone in the number of trials: binary search for the least.
std::optional<uint64_t> LeastTrials(const TrialPlanInput& in, double duration) {
  if (!Resolves(in, kMaxPlannedTrials, duration)) return std::nullopt;
  uint64_t lo = 2, hi = kMaxPlannedTrials;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (Resolves(in, mid, duration)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace

std::optional<uint64_t> TrialsAt(const TrialPlanInput& in, double duration_s) {
  if (!Valid(in) || !(duration_s > 0) || !std::isfinite(duration_s)) return std::nullopt;
  return LeastTrials(in, duration_s);
}

std::optional<TrialPlan> PlanTrials(const TrialPlanInput& in) {
  if (!Valid(in)) return std::nullopt;
  std::optional<TrialPlan> best;
  for (double d : kPlannedDurations) {
    const std::optional<uint64_t> trials = LeastTrials(in, d);
    if (!trials) continue;
    const TrialPlan plan{*trials, d, static_cast<double>(*trials) * (d + in.overhead_s)};
    if (!best || plan.total_s < best->total_s) best = plan;
  }
  return best;
}

}  // namespace pqc
