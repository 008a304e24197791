// stop_spec — a study that stops itself (the scenario's [stop] section, or `run --stop`): which
// questions it must answer, to what precision, within what budget. Every question is a
// one-factor comparison of the matrix — two arms that differ in one factor only, the factor's
// first value the baseline — at one statistic of one phase, judged by stats/stopping_rule.h
// after every block. The file's shape:
//   [stop]
//   p50 = "2%"          precision of each p50 difference: ± this share of the baseline arm's
//   p99 = "10%"         p50, or an absolute time ("30us"); also p95 and mean. Default: p50 2 %,
//                       p99 10 % (when none is given).
//   phases = ["handshake", "total"]   the phases asked about (default these two)
//   factors = ["group"] the factors whose comparisons are asked (default every varying one)
//   time = "10m"        budget in wall time (default 10 minutes; "0s": none)
//   blocks = 100        budget in blocks, and the plan's length (default [trials] count's
//                       maximum, 1000: the time budget binds first)
//   min_blocks = 4      no look before this many blocks (≥ 3)
//   confidence = 0.95   of every interval
//   length = "chosen"   the trial length: "chosen" after the first look from what the first
//                       blocks show (stats/trial_length.h; those blocks are then a pilot, not
//                       pooled), or "fixed" at [trials] duration
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "records/summary.h"
#include "stats/stopping_rule.h"

namespace pqc::scenario {

struct StopSpec {
  std::vector<std::pair<Statistic, Precision>> precisions;  // in the order mean, p50, p95, p99
  std::vector<Phase> phases = {Phase::kHandshake, Phase::kTotal};
  std::vector<std::string> factors;  // empty: every factor with more than one value
  StoppingRule rule;
  bool choose_length = true;
};

// DefaultStop: p50 ± 2 %, p99 ± 10 % of handshake and total, every factor, 10 minutes, at most
// 100 blocks.
StopSpec DefaultStop();

// DescribeStop: one line, e.g. "p50 ±2 %, p99 ±10 % of handshake, total; within 10m or 100
// blocks".
std::string DescribeStop(const StopSpec& spec);

}  // namespace pqc::scenario
