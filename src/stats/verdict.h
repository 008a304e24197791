// verdict — one difference between two arms in words a reader acts on: a size with its
// interval when the data show a difference, else the largest difference the data cannot rule
// out. The one place in stats that formats text, kept apart so the maths stays data-only.
#pragma once

#include <string>

#include "stats/statistic.h"

namespace pqc {

// Verdict: detectable when the interval excludes 0; sign +1 (b larger), −1 (b smaller), 0 (not
// detectable or undefined); text for reports.
struct Verdict {
  bool detectable = false;
  int sign = 0;
  std::string text;
};

// MakeVerdict: from a difference b − a in µs (DifferenceInterval), printed in ms with µs
// precision (3 decimals):
//   lo > 0 or hi < 0:  "+0.410 ms [0.360, 0.470]" / "-0.120 ms [-0.150, -0.090]"
//   otherwise:         "no difference detectable above ±0.050 ms"
// where 0.050 is max(|lo|, |hi|), not the half-width: an interval [−0.010, 0.090] rules out
// neither a 0.090 ms slowdown nor no change, and the half-width (0.050) would understate what
// remains possible. Undefined intervals (NaN bound or estimate) give
//   "not enough samples for a confidence interval".
// kMicroseconds prints µs with one decimal ("+86.3 µs [12.1, 160.5]"), for CPU per
// handshake, whose differences are tens of µs and whose intervals are over a few trials.
enum class VerdictUnit { kMilliseconds, kMicroseconds };
Verdict MakeVerdict(const Interval& difference_us, VerdictUnit unit = VerdictUnit::kMilliseconds);

}  // namespace pqc
