// count_gate — a regression gate on instruction counts for CI: "server.instructions > +1%",
// "client.verify > +20000" or "server.sign < -5%" fails `compare` of two count results when the
// whole range of the difference lies beyond the threshold. The range: from the smallest to the
// largest difference between a repetition of one side and one of the other — a count does not
// drift with the machine, so one run per side is enough, and what varies between repetitions
// (ML-DSA's signing loop, randomised by design) widens the range instead of failing a build.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "count/stage_table.h"

namespace pqc::count {

struct CountGate {
  std::string text;            // as given
  std::string side;            // client | server
  std::optional<Stage> stage;  // none: the total
  bool above = true;           // '>' fails on more instructions, '<' on fewer
  bool relative = false;       // threshold in percent of the baseline's mean
  double threshold = 0;        // percent when relative, else instructions per handshake
};

// ParseCountGate: SIDE.WHAT (> | <) [+|-]NUMBER[%], WHAT = instructions (the total) or a stage
// id; spaces allowed around the operator. Errors list the valid sides and stages.
Result<CountGate> ParseCountGate(std::string_view text);

struct CountDifference {
  double base = 0, other = 0;  // means
  double lo = 0, hi = 0;       // other − base, smallest and largest over pairs of repetitions
};
CountDifference Differ(const std::vector<double>& base, const std::vector<double>& other);

// CountGateFails: the whole range [lo, hi] beyond the threshold (relative: of `base`).
bool CountGateFails(const CountGate& gate, const CountDifference& d);

}  // namespace pqc::count
