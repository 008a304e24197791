// comparison_phase — the phase of a study comparison as the typed Phase. summary.h's
// Comparison still holds it as the text of its JSON form; a reporter that branches on the
// phase turns it back here, once, and compares enums, never strings.
#pragma once

#include <optional>

#include "report/summary.h"

namespace pqc::report {

// ComparisonPhase: the phase `c` compares; none for a name no phase has.
inline std::optional<Phase> ComparisonPhase(const Comparison& c) {
  for (Phase p : kAllPhases) {
    if (PhaseName(p) == c.phase) return p;
  }
  return std::nullopt;
}

}  // namespace pqc::report
