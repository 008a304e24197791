#include "stats/trial_length.h"

#include <algorithm>

namespace pqc {

std::optional<TrialLengthAdvice> AdviseTrialLength(std::span<const Answer> answers,
                                                   const StoppingRule& rule, const Look& look,
                                                   size_t arms) {
  if (answers.empty() || arms == 0) return std::nullopt;
  std::optional<TrialLengthAdvice> best;
  for (double d : kPlannedDurations) {
    uint64_t blocks = 0;
    bool reachable = true;
    for (const Answer& a : answers) {
      const std::optional<uint64_t> needed = TrialsAt(PlanInputOf(a, rule, look), d);
      if (!needed) {
        reachable = false;
        break;
      }
      blocks = std::max(blocks, *needed);
    }
    if (!reachable) continue;
    const double total = static_cast<double>(blocks * arms) * (d + look.overhead_s);
    if (!best || total < best->total_s) best = TrialLengthAdvice{d, blocks, total};
  }
  return best;
}

}  // namespace pqc
