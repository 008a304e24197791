#include "stats/student_t.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/bisect.h"
#include "stats/normal.h"

namespace pqc {
namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// StartingT: the t quantile's Cornish–Fisher expansion around the normal quantile z in powers
// of 1/df (Abramowitz & Stegun 26.7.5): close from df 5 on, a start for Newton's steps. Never
// below z (T spreads wider than the normal at every df) nor past the bracket.
double StartingT(double z, double df) {
  const double z2 = z * z;
  const double g1 = (z2 + 1) * z / 4;
  const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  const double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
  const double t = z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
  return std::isfinite(t) ? std::clamp(t, z, 1e8) : z;
}

// InvertCentral: the t whose central probability is `confidence`: it rises from 0 at t = 0
// towards 1 with slope twice T's density, and 1e9 lies beyond any quantile asked for here
// (df 1 at 0.999999 is about 6.4e5). Newton's steps from the expansion above: about 5
// evaluations of `central` where bisection from [0, 1e9] took about 80.
template <typename Central>
double InvertCentral(double confidence, double df, Central central) {
  // log of the density's constant, Γ((df+1)/2) / (Γ(df/2) √(df π)), computed once
  const double log_norm =
      std::lgamma((df + 1) / 2) - std::lgamma(df / 2) - 0.5 * std::log(df * M_PI);
  const auto slope = [df, log_norm](double t) {
    return 2 * std::exp(log_norm - (df + 1) / 2 * std::log1p(t * t / df));
  };
  const double start = StartingT(NormalQuantile(0.5 + confidence / 2), df);
  return NewtonIncreasing(confidence, 0.0, 1e9, start, central, slope);
}

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

// BetaContinuedFraction: the continued fraction of the incomplete beta function I_x(a, b),
// evaluated with the modified Lentz method; converges fast for x < (a + 1)/(a + b + 2).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double c = 1;
  double d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
  double f = d;
  for (int m = 1; m <= 300; ++m) {
    const double md = m;
    // The even step d_{2m}, then the odd step d_{2m+1} of the fraction.
    for (const double coef : {md * (b - md) * x / ((a + 2 * md - 1) * (a + 2 * md)),
                              -(a + md) * (a + b + md) * x / ((a + 2 * md) * (a + 2 * md + 1))}) {
      d = 1 + coef * d;
      d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
      c = 1 + coef / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      f *= c * d;
    }
    if (std::fabs(c * d - 1) < 1e-15) break;
  }
  return f;
}

// IncompleteBeta: the regularized I_x(a, b) for a, b > 0 and 0 ≤ x ≤ 1.
double IncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

}  // namespace

double StudentTCentralDf(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return kNoValue;
  t = std::fabs(t);
  if (std::isinf(t)) return 1.0;
  return 1 - IncompleteBeta(df / 2, 0.5, df / (df + t * t));
}

double StudentTQuantileDf(double confidence, double df) {
  if (!(confidence > 0 && confidence < 1) || !(df > 0) || !std::isfinite(df)) return kNoValue;
  return InvertCentral(confidence, df, [df](double t) { return StudentTCentralDf(t, df); });
}

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
  return InvertCentral(confidence, df, [df](double t) { return StudentTCentral(t, df); });
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
                             double confidence, double floor_variance) {
  const Moments b = MomentsOf(base), o = MomentsOf(other);
  MeanInterval out{kNoValue, kNoValue, kNoValue, std::min(b.n, o.n)};
  if (b.n == 0 || o.n == 0) return out;
  out.mean = o.mean - b.mean;
  if (b.n < 2 || o.n < 2) return out;
  const double vb = b.variance / b.n, vo = o.variance / o.n;
  const double se = std::sqrt(vb + vo);
  // The floor: what the measurement alone implies, with a normal quantile (its variance is
  // known, not estimated). Every trial agreeing exactly no longer gives a zero-width interval.
  const double floor_half = NormalQuantile(0.5 + confidence / 2) *
                            std::sqrt(std::max(0.0, floor_variance) * (1.0 / b.n + 1.0 / o.n));
  double half = floor_half;
  if (se > 0) {
    const double denom = vb * vb / (b.n - 1) + vo * vo / (o.n - 1);
    const double df = (vb + vo) * (vb + vo) / denom;
    half = std::max(half, StudentTQuantileDf(confidence, df) * se);
  }
  out.lo = out.mean - half;
  out.hi = out.mean + half;
  return out;
}

}  // namespace pqc
