// factor_gates — regression gates on one run's own comparisons along one matrix factor:
// `compare RUN --factor build --fail-if 'handshake.p50 > +5%'`. A study whose arms are builds
// (or configurations, or any factor) already holds each value's difference from the factor's
// first value, paired by block over the run's trials (summary.json's comparisons); a gate
// judges those intervals as it judges the differences between runs (gate.h): it fails when
// the whole interval lies beyond its threshold, and cannot judge without an interval.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "report/gate.h"
#include "report/summary.h"

namespace pqc::report {

// FactorLine: one difference of the factor (one value against the first, one phase and
// statistic), with the gates that judged it.
struct FactorLine {
  std::string from, to;  // the factor's values: baseline, other
  std::string arm;       // the other arm's label
  Phase phase = Phase::kHandshake;
  Statistic statistic = Statistic::kP50;
  Difference difference;
  std::optional<double> baseline_us;              // the baseline arm's statistic
  bool control = false;                           // an A/A pair (identical settings)
  std::vector<std::string> failed, cannot_judge;  // the gates' texts
};

struct FactorVerdict {
  std::string factor;
  std::vector<FactorLine> lines;
  bool any_failed() const;
  bool any_cannot_judge() const;
};

// JudgeFactor: the summary's comparisons along `factor`, each judged by every gate of its
// phase (without gates: the p50 and p99 of every phase compared). An error naming the
// factors that vary when `factor` is not one of them.
Result<FactorVerdict> JudgeFactor(const Summary& summary, std::string_view factor,
                                  const std::vector<Gate>& gates);

// FactorVerdictText: one line per difference ("handshake p50  slow − this  +1012.3 µs
// [950.1, 1074.5] (+85.2 %)  FAILS 'handshake.p50 > +5%'").
std::string FactorVerdictText(const FactorVerdict& verdict);

}  // namespace pqc::report
