// student_t — Student's t distribution for integer degrees of freedom, for intervals whose
// unit is the trial: a quantity measured once per trial (the server's CPU per handshake, from
// its own rusage) has as many observations as trials, usually 2 to 5, where the normal
// approximation would claim far too narrow an interval.
#pragma once

#include <span>

namespace pqc {

// StudentTCentral: P(|T| ≤ t) for T with `df` degrees of freedom (df ≥ 1), by the exact
// finite series for integer df (Abramowitz & Stegun 26.7.3/26.7.4). NaN for df < 1 or NaN t.
double StudentTCentral(double t, int df);

// StudentTQuantile: t with P(|T| ≤ t) = confidence, i.e. the two-sided critical value
// (confidence 0.95, df 2 → 4.303). Preconditions: 0 < confidence < 1, df ≥ 1; else NaN.
double StudentTQuantile(double confidence, int df);

// MeanInterval: the mean of `values` and its two-sided t interval (mean ± t·s/√n), treating
// each value as one independent observation. NaN values are skipped; fewer than 2 values
// leave lo and hi NaN (one trial says nothing about how the next would differ).
struct MeanInterval {
  double mean = 0, lo = 0, hi = 0;
  int n = 0;
};
MeanInterval TInterval(std::span<const double> values, double confidence);

// WelchDifference: mean(other) − mean(base) and its two-sided Welch interval, for two
// independent sets of trials (two runs on different machines or builds: nothing pairs their
// trials). Degrees of freedom by Welch–Satterthwaite, rounded down to an integer, which widens
// the interval rather than claiming precision the trials do not have. NaN values are skipped;
// fewer than 2 values on either side leave lo and hi NaN; n is the smaller side's count.
MeanInterval WelchDifference(std::span<const double> base, std::span<const double> other,
                             double confidence);

}  // namespace pqc
