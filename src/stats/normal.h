// normal — the standard normal distribution's quantile, needed for normal-approximation
// intervals (the mean) and by tests that know a distribution's true quantiles. The C++
// library has erfc but no inverse, so the inverse is computed here from erfc rather than from
// a polynomial approximation whose error would have to be trusted separately.
#pragma once

namespace pqc {

// NormalCdf: Φ(z) = P(Z ≤ z) for a standard normal Z, via erfc (accurate in both tails).
double NormalCdf(double z);

// NormalQuantile: z with Φ(z) = p, by bisection on NormalCdf to the last bit (about 100
// halvings; called a handful of times per interval, so speed does not matter).
// Preconditions: 0 < p < 1. Returns −∞ at p = 0, +∞ at p = 1, NaN outside [0, 1] or for NaN.
double NormalQuantile(double p);

}  // namespace pqc
