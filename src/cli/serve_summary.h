// serve_summary — what `pqc-bench serve` prints when it stops: connections, handshakes,
// requests, errors by class and the CPU they cost, from the server's own counts.
#pragma once

#include "server/server_stats.h"

namespace pqc::cli {

void PrintServeSummary(const ServerStats& s);

}  // namespace pqc::cli
