#include "server/listeners.h"

#include <netinet/in.h>

#include "net/socket.h"

namespace pqc {
namespace {

SocketAddress WithPort(SocketAddress addr, uint16_t port) {
  if (addr.family() == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(&addr.storage)->sin6_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in*>(&addr.storage)->sin_port = htons(port);
  }
  return addr;
}

}  // namespace

Result<std::vector<ScopedFd>> OpenListeners(const SocketAddress& addr, int count, int backlog) {
  std::vector<ScopedFd> out;
  const bool share = count > 1;
  if (share && addr.port() != 0) {
    auto probe = ListenTcp(addr, 1, /*reuse_port=*/false);
    if (!probe) return probe.error();
  }
  auto first = ListenTcp(addr, backlog, share);
  if (!first) return first.error();
  auto bound = LocalAddress(first->get());
  if (!bound) return bound.error();
  out.push_back(std::move(*first));
  const SocketAddress same = WithPort(addr, bound->port());
  for (int i = 1; i < count; ++i) {
    auto next = ListenTcp(same, backlog, true);
    if (!next) return next.error();
    out.push_back(std::move(*next));
  }
  return out;
}

}  // namespace pqc
