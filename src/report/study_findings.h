// study_findings — what a study found, in plain sentences, before any table: for each arm
// compared with its baseline in the study's first varying factor, the handshake's p50 and p99
// difference with its interval and relative size, and the server's extra CPU per handshake
// with its interval over trials (and, for a payload sweep, the response's difference per
// size); "no difference detectable" said as such; arms that failed or
// have no valid trial named. With nothing to compare, each arm's handshake p50 and p99 with
// their intervals. Every number comes from the summary (no statistics here), and none appears
// without its interval.
#pragma once

#include <string>
#include <vector>

#include "report/summary.h"

namespace pqc::report {

std::vector<std::string> StudyFindings(const Summary& summary);

}  // namespace pqc::report
