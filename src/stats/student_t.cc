#include "stats/student_t.h"

#include <cmath>
#include <limits>

namespace pqc {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

double StudentTCentral(double t, int df) {
  if (df < 1 || std::isnan(t)) return kNaN;
  t = std::fabs(t);
  if (std::isinf(t)) return 1.0;
  const double theta = std::atan(t / std::sqrt(static_cast<double>(df)));
  const double c = std::cos(theta);
  const double s = std::sin(theta);
  // The series' terms: each is the previous times c² · (k−1)/k over the odd or even k.
  if (df % 2 == 1) {
    double sum = 0;
    if (df > 1) {
      double term = c;
      sum = term;
      for (int k = 3; k <= df - 2; k += 2) {
        term *= c * c * static_cast<double>(k - 1) / static_cast<double>(k);
        sum += term;
      }
    }
    return 2.0 / M_PI * (theta + s * sum);
  }
  double term = 1.0;
  double sum = 1.0;
  for (int k = 2; k <= df - 2; k += 2) {
    term *= c * c * static_cast<double>(k - 1) / static_cast<double>(k);
    sum += term;
  }
  return s * sum;
}

double StudentTQuantile(double confidence, int df) {
  if (!(confidence > 0 && confidence < 1) || df < 1) return kNaN;
  // Bounded bisection: the central probability rises from 0 at t = 0 towards 1; 1e9 lies
  // beyond any quantile asked for here (df 1 at 0.999999 is about 6.4e5).
  double lo = 0;
  double hi = 1e9;
  for (int i = 0; i < 200; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (StudentTCentral(mid, df) < confidence) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo + (hi - lo) / 2;
}

MeanInterval TInterval(std::span<const double> values, double confidence) {
  MeanInterval out{kNaN, kNaN, kNaN, 0};
  double sum = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    sum += v;
    ++out.n;
  }
  if (out.n == 0) return out;
  out.mean = sum / out.n;
  if (out.n < 2) return out;
  double ss = 0;
  for (double v : values) {
    if (!std::isnan(v)) ss += (v - out.mean) * (v - out.mean);
  }
  const double se = std::sqrt(ss / (out.n - 1)) / std::sqrt(static_cast<double>(out.n));
  const double half = StudentTQuantile(confidence, out.n - 1) * se;
  out.lo = out.mean - half;
  out.hi = out.mean + half;
  return out;
}

}  // namespace pqc
