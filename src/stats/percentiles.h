// percentiles — order statistics of one phase's samples (latencies in µs, but nothing here
// knows units). Pure functions over vectors so that they are tested against known
// distributions on their own, and every reporter prints the same numbers.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace pqc {

// Percentile: the q-quantile by linear interpolation between closest ranks ("type 7" of
// Hyndman & Fan 1996; the default of R, NumPy and Excel's PERCENTILE.INC). With n sorted
// values x[0..n-1] and h = (n − 1)·q, the result is x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
// It is chosen because it is continuous in q, never leaves [min, max], and gives exactly
// min at q = 0, max at q = 1 and the usual median, so p99 of few samples is not a jump.
// Preconditions: `sorted` ascending without NaN; 0 ≤ q ≤ 1 (clamped otherwise).
// Returns NaN for an empty input (an undefined statistic, never a made-up zero) or a NaN q.
double Percentile(std::span<const double> sorted, double q);

// PhaseStats — the fixed set of statistics every report shows for a phase, so that no output
// format's columns depend on the data. With count == 0 every other field is NaN (undefined;
// JSON writes null); with count == 1 every field equals the one value.
struct PhaseStats {
  static constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

  uint64_t count = 0;
  double min = kUndefined;
  double mean = kUndefined;
  double p50 = kUndefined;
  double p75 = kUndefined;
  double p90 = kUndefined;
  double p95 = kUndefined;
  double p99 = kUndefined;
  double p999 = kUndefined;
  double max = kUndefined;
};

// Summarize: PhaseStats of `values` in any order (taken by value and sorted here, so callers
// may move their sample vector in). Precondition: no NaN among the values.
PhaseStats Summarize(std::vector<double> values);

}  // namespace pqc
