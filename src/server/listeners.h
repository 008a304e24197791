// listeners — one listening socket per event-loop thread on the same address, bound with
// SO_REUSEPORT so that the kernel spreads new connections across the threads without a
// shared accept lock. Port 0 works: the first socket gets an ephemeral port, the others
// join it.
#pragma once

#include <vector>

#include "core/error.h"
#include "core/fd.h"
#include "net/address.h"

namespace pqc {

// OpenListeners: count sockets. With SO_REUSEPORT a second server started by mistake on the
// same port would silently share the traffic with the first, so a fixed port is first
// checked to be free by binding it without SO_REUSEPORT.
Result<std::vector<ScopedFd>> OpenListeners(const SocketAddress& addr, int count, int backlog);

}  // namespace pqc
