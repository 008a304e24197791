// stop_wait — how `serve` (embedded or nginx) waits for its end: SIGINT or SIGTERM, blocked in
// every thread so that they queue for this one waiter, or a deadline. One place, because both
// foreground servers must stop the same way.
#pragma once

#include <signal.h>

#include "core/clock.h"

namespace pqc::cli {

// WaitForStop: the signal that arrived, or 0 when the deadline (0 = none) passed first.
int WaitForStop(const sigset_t& signals, Nanos deadline);

}  // namespace pqc::cli
