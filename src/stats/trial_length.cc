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

std::optional<TrialLengthSwitch> SwitchTrialLength(std::span<const Answer> answers,
                                                   const StoppingRule& rule, const Look& look,
                                                   size_t arms) {
  const std::optional<TrialLengthAdvice> advice = AdviseTrialLength(answers, rule, look, arms);
  if (!advice || advice->duration_s == look.trial_s) return std::nullopt;
  uint64_t stay_blocks = 0;
  for (const Answer& a : answers) {
    const std::optional<uint64_t> needed = TrialsAt(PlanInputOf(a, rule, look), look.trial_s);
    if (!needed) return TrialLengthSwitch{*advice, std::nullopt};
    stay_blocks = std::max(stay_blocks, *needed);
  }
  const double stay_s =
      static_cast<double>(stay_blocks > look.blocks ? stay_blocks - look.blocks : 0) *
      static_cast<double>(arms) * (look.trial_s + look.overhead_s);
  if (!(advice->total_s < kSwitchShare * stay_s)) return std::nullopt;
  return TrialLengthSwitch{*advice, stay_s};
}

}  // namespace pqc
