// serve_count — `serve --count-control`: the server side of `pqc-bench count`'s measured
// window. The server runs under callgrind; `count` writes one command per line on its stdin:
// `zero` (the window opens) and `dump` (it closes). Each is carried out only once the server
// holds no connection — the client has finished its connection, but the server may not yet
// have read its close — so that a window holds whole connections, and the same ones every
// time; each is answered on stdout ("count zeroed", "count dumped").
#pragma once

#include <functional>

#include "core/clock.h"
#include "core/stop_signals.h"

namespace pqc::cli {

// WaitWithCountControl: as signals.WaitUntil(deadline), carrying out the commands read on
// stdin meanwhile; stdin's end leaves the wait to the signals and the deadline.
int WaitWithCountControl(StopSignals& signals, Nanos deadline,
                         const std::function<size_t()>& open_connections);

}  // namespace pqc::cli
