#include "stats/student_t.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pqc {
namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// Moments: mean and variance of the non-NaN values (variance with n − 1; NaN below 2 values).
struct Moments {
  double mean = kNoValue, variance = kNoValue;
  int n = 0;
};
Moments MomentsOf(std::span<const double> values) {
  Moments m;
  double sum = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    sum += v;
    ++m.n;
  }
  if (m.n == 0) return m;
  m.mean = sum / m.n;
  if (m.n < 2) return m;
  double ss = 0;
  for (double v : values) {
    if (!std::isnan(v)) ss += (v - m.mean) * (v - m.mean);
  }
  m.variance = ss / (m.n - 1);
  return m;
}

}  // namespace

double StudentTCentral(double t, int df) {
  if (df < 1 || std::isnan(t)) return kNoValue;
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
  if (!(confidence > 0 && confidence < 1) || df < 1) return kNoValue;
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
  const Moments m = MomentsOf(values);
  MeanInterval out{m.mean, kNoValue, kNoValue, m.n};
  if (m.n < 2) return out;
  const double half =
      StudentTQuantile(confidence, m.n - 1) * std::sqrt(m.variance / static_cast<double>(m.n));
  out.lo = m.mean - half;
  out.hi = m.mean + half;
  return out;
}

MeanInterval WelchDifference(std::span<const double> base, std::span<const double> other,
                             double confidence) {
  const Moments b = MomentsOf(base), o = MomentsOf(other);
  MeanInterval out{kNoValue, kNoValue, kNoValue, std::min(b.n, o.n)};
  if (b.n == 0 || o.n == 0) return out;
  out.mean = o.mean - b.mean;
  if (b.n < 2 || o.n < 2) return out;
  const double vb = b.variance / b.n, vo = o.variance / o.n;
  const double se = std::sqrt(vb + vo);
  if (se == 0) {  // every trial of both runs agrees exactly: the difference is what it is
    out.lo = out.hi = out.mean;
    return out;
  }
  const double df = (vb + vo) * (vb + vo) / (vb * vb / (b.n - 1) + vo * vo / (o.n - 1));
  const double half = StudentTQuantile(confidence, std::max(1, static_cast<int>(df))) * se;
  out.lo = out.mean - half;
  out.hi = out.mean + half;
  return out;
}

}  // namespace pqc
