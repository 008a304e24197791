// readiness — the few things every target driver does around a child server: check the files
// it will be given (so that a missing certificate is named, not discovered as a timeout),
// pick a free port where a server cannot report its own, and wait until the address accepts
// connections — from inside the server's network namespace when it has one.
#pragma once

#include <functional>
#include <string>

#include "core/child_process.h"
#include "core/clock.h"
#include "core/error.h"
#include "net/address.h"
#include "target/target.h"

namespace pqc::target {

// CheckReadable: the file exists and can be read; the error names `what` and the path.
Status CheckReadable(const std::string& what, const std::string& path);

// InNetns: runs fn on a thread that entered the network namespace (or on this thread when
// netns_path is empty), so that sockets it makes live there. Namespaces are per thread.
Status InNetns(const std::string& netns_path, const std::function<Status()>& fn);

// PickFreePort: binds host's address with port 0 in the namespace, reads the port and closes;
// the caller passes it to a server (which may lose a race for it: retry on "address in use").
Result<uint16_t> PickFreePort(const SocketAddress& host, const std::string& netns_path);

// WaitUntilAccepting: connects to addr every 10 ms until it succeeds, `gave_up()` returns an
// error (e.g. the child exited), or the deadline passes.
Status WaitUntilAccepting(const SocketAddress& addr, const std::string& netns_path, Nanos deadline,
                          const std::function<Status()>& gave_up);

// StatsOfExit: the stats every driver reads from its child's exit (CPU from its own rusage,
// wall time), its log at log_path; `died` when the child ended unasked (`server` names it).
TargetStats StatsOfExit(const ChildExit& e, std::string log_path, std::string_view server);

// ReadTail: the last `max_bytes` of a log file, for error messages ("" if unreadable).
std::string ReadTail(const std::string& path, size_t max_bytes = 2000);

}  // namespace pqc::target
