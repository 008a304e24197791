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

// StudentTCentralDf / StudentTQuantileDf: the same for real degrees of freedom (df > 0), as
// Welch–Satterthwaite and two-level variance components give them: flooring df to an integer
// (1.9 → 1 turns t = 4.6 into 12.7) made intervals over two runs per side far too wide to fail a
// gate. Via the regularized incomplete beta function, P(|T| ≤ t) = 1 − I_{df/(df+t²)}(df/2, ½);
// integer df agree with the exact series above to 1e-10.
double StudentTCentralDf(double t, double df);
double StudentTQuantileDf(double confidence, double df);

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
// trials). Degrees of freedom by Welch–Satterthwaite, not rounded (StudentTQuantileDf). NaN
// values are skipped; fewer than 2 values on either side leave lo and hi NaN; n is the smaller
// side's count. `floor_variance` (≥ 0) is the variance of one value that its measurement alone
// implies (e.g. the clock's resolution): the half-width is never below z · √(floor/n_b +
// floor/n_o), so tied trials do not make any nonzero difference "detectable".
MeanInterval WelchDifference(std::span<const double> base, std::span<const double> other,
                             double confidence, double floor_variance = 0);

}  // namespace pqc
