// gate — a regression gate for CI: "handshake.p99 > +5%" or "connect.p50 > +1ms" fails a
// comparison only when the whole interval of the difference (other run − baseline) lies beyond
// the threshold, so that noise ("no difference detectable") never fails a build. "<" is the
// mirror image, for a change that must not get faster than expected (a cache that stopped
// being bypassed): "total.mean < -10%" fails when the whole interval lies below −10 %.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "records/summary.h"
#include "core/error.h"
#include "stats/statistic.h"

namespace pqc::report {

struct Gate {
  std::string text;  // as given, for messages
  Phase phase = Phase::kHandshake;
  Statistic statistic = Statistic::kP50;
  bool above = true;      // '>': fails on a slowdown; '<': fails on a speed-up
  bool relative = false;  // threshold in percent of the baseline's statistic
  double threshold = 0;   // percent when relative, else µs (signed)
};

// ParseGate: PHASE.STATISTIC (> | <) [+|-]NUMBER(% | ns | us | ms | s), spaces allowed around
// the operator. A bad expression gets an error listing the valid phases and statistics.
Result<Gate> ParseGate(std::string_view text);

// GateThresholdUs: the threshold in µs — a relative one as its share of `baseline_us` — or
// nothing when a relative threshold has no positive baseline latency to be a share of.
std::optional<double> GateThresholdUs(const Gate& gate, std::optional<double> baseline_us);

// GateFails: whether the difference's interval [lo, hi] (µs) lies wholly beyond the gate's
// threshold (relative thresholds against `baseline_us`). An undefined bound never fails.
bool GateFails(const Gate& gate, std::optional<double> lo, std::optional<double> hi,
               std::optional<double> baseline_us);

// GateCannotJudge: a difference with an estimate but no interval (a bound undefined) against a
// threshold that exists: the gate can neither fail it nor let it pass — one trial says nothing
// about the next, so "no interval" is not "no regression".
bool GateCannotJudge(const Gate& gate, std::optional<double> estimate, std::optional<double> lo,
                     std::optional<double> hi, std::optional<double> baseline_us);

}  // namespace pqc::report
