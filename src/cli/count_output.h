// count_output — `pqc-bench count`'s tables: per side the instructions per handshake, stage by
// stage, their share and spread over the repetitions, the syscalls, and the crypto floor counted
// alone beside the stages it prices (docs/cli.md, "Instructions per handshake").
#pragma once

#include <ostream>

#include "count/count_report.h"

namespace pqc::cli {

void WriteCountTables(std::ostream& out, const count::CountReport& r);

}  // namespace pqc::cli
