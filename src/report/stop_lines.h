// stop_lines — how a study that stopped itself ended, as lines every reporter prints the same
// way (text, Markdown, HTML): a headline, then one line per question — answered, as estimate ±
// the precision asked, or not, with its interval as it stands and what would answer it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/summary.h"
#include "results/run_record.h"

namespace pqc::report {

struct StopLines {
  std::string headline;  // "The study stopped itself after 8 blocks (27 s): …. Asked: …."
  std::vector<std::string> answers;
};

StopLines LinesOf(const results::StopRecord& stop);

// PilotTrial: trial t is left out only because it belongs to the pilot of a study that chose
// its trial length (the pilot's own reason is its one reason): the reporters list such trials
// as one PilotLine, not each as a problem.
bool PilotTrial(const TrialSummary& t, const std::optional<results::StopRecord>& stop);
std::optional<std::string> PilotLine(const Summary& s);

}  // namespace pqc::report
