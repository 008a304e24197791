// fd_limit — the one check, shared by `load` and `run`, that the file-descriptor limit holds
// the worst case of an arm before its first connection: an open-loop schedule keeps starting
// connections while a stalled server holds the earlier ones, so a limit that only fits the
// steady state fails in the middle of a trial (EMFILE, recorded as connect errors that the
// server never caused). Refusing at the start, with the `ulimit -n` to set, loses nothing.
#pragma once

#include <cstdint>
#include <string_view>

#include "records/load_options.h"
#include "core/error.h"

namespace pqc {

// WorstCaseOpenConnections: connections an arm can hold at once. Each connection lives at
// most `timeout` without progress plus the think time of its keep-alive requests, and arrivals
// keep coming at `rate` meanwhile (open loop; a concurrency arm is the same schedule with the
// rate derived from it); max_inflight caps the count (beyond it arrivals are skipped).
uint64_t WorstCaseOpenConnections(const LoadOptions& options);

// FileDescriptorsNeeded: the worst case plus what a run holds besides sockets (epoll,
// timerfds, eventfds and pipes per thread, the results database, logs).
uint64_t FileDescriptorsNeeded(const LoadOptions& options);

// EnsureFileLimit: raises the soft RLIMIT_NOFILE up to the hard one if that is enough;
// otherwise a kUsage error, prefixed with `what` (e.g. "arm 'X25519'"), naming the numbers,
// the `ulimit -n N` to run first, and the settings that would lower N.
Status EnsureFileLimit(const LoadOptions& options, std::string_view what = {});

}  // namespace pqc
