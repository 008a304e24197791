// StopSignals — SIGINT and SIGTERM blocked in the calling thread while it lives (threads it
// starts meanwhile inherit the mask), so that a Ctrl-C queues for one waiter instead of
// killing the process while a trial is measured, a target starts or results are written.
// One class for every owner of a stop (the runner between trials, the load generator's
// drain, `serve` waiting for its end), so that all of them stop alike.
#pragma once

#include <signal.h>

#include "core/clock.h"
#include "core/fd.h"

namespace pqc {

class StopSignals {
 public:
  StopSignals();
  // Consumes a signal still queued (one that came after the last wait must not kill the
  // process once the mask is restored), then restores the previous mask.
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Pending: whether a stop arrived since the last call (consumes every queued one).
  bool Pending();
  // WaitUntil: the signal that arrived, or 0 when `deadline` (CLOCK_MONOTONIC ns) passed
  // first; a deadline of 0 waits for a signal however long it takes.
  int WaitUntil(Nanos deadline);
  // WaitUntil with a watched descriptor: as above, or kWatchReady once `watch_fd` is readable
  // (e.g. a child's pidfd: the server died). watch_fd < 0 watches nothing.
  int WaitUntil(Nanos deadline, int watch_fd);
  static constexpr int kWatchReady = -1;

 private:
  sigset_t set_{};
  sigset_t old_{};
  ScopedFd signal_fd_;  // made on the first watched wait
};

}  // namespace pqc
