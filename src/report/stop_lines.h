// stop_lines — how a study that stopped itself ended, as lines every reporter prints the same
// way (text, Markdown, HTML): a headline, then one line per question — answered, as estimate ±
// the precision asked, or not, with its interval as it stands and what would answer it.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace pqc::report {

struct StopLines {
  std::string headline;  // "The study stopped itself after 8 blocks (27 s): …. Asked: …."
  std::vector<std::string> answers;
};

StopLines LinesOf(const results::StopRecord& stop);

}  // namespace pqc::report
