// serve_embedded — `pqc-bench serve` with the embedded server (src/server, and quic/ for
// h3): the TCP and QUIC servers started on one port number, the wait for a stop or
// --duration, and the final counts printed and written (--stats-json, --clients).
#pragma once

#include "cli/serve_flags.h"

namespace pqc::cli {

// ServeEmbedded: serves until SIGINT/SIGTERM or --duration; the exit status.
int ServeEmbedded(const ServeFlags& f);

}  // namespace pqc::cli
