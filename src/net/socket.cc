#include "net/socket.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace pqc {
namespace {

Error SysError(std::string_view call, const SocketAddress* addr, int err) {
  if (addr == nullptr) return MakeError(ErrorKind::kIo, fmt::format("{}: {}", call, strerror(err)));
  return MakeError(ErrorKind::kIo, fmt::format("{} {}: {}", call, addr->ToString(), strerror(err)));
}

Status SetIntOption(int fd, int level, int name, int value, std::string_view what,
                    const SocketAddress* addr) {
  if (setsockopt(fd, level, name, &value, sizeof(value)) != 0) return SysError(what, addr, errno);
  return {};
}

Result<ScopedFd> NewTcpSocket(const SocketAddress& addr) {
  ScopedFd fd(socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP));
  if (!fd.valid()) return SysError("socket for", &addr, errno);
  return fd;
}

Result<ScopedFd> NewUdpSocket(const SocketAddress& addr) {
  ScopedFd fd(socket(addr.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP));
  if (!fd.valid()) return SysError("UDP socket for", &addr, errno);
  return fd;
}

}  // namespace

Result<ScopedFd> BindUdp(const SocketAddress& addr, bool reuse_port) {
  auto fd = NewUdpSocket(addr);
  if (!fd) return fd.error();
  if (reuse_port) {
    if (Status s = SetIntOption(fd->get(), SOL_SOCKET, SO_REUSEPORT, 1, "SO_REUSEPORT on", &addr);
        !s) {
      return s.error();
    }
  }
  if (bind(fd->get(), addr.sa(), addr.len) != 0) return SysError("bind (UDP)", &addr, errno);
  return fd;
}

Result<ScopedFd> ConnectUdp(const SocketAddress& addr) {
  auto fd = NewUdpSocket(addr);
  if (!fd) return fd.error();
  if (connect(fd->get(), addr.sa(), addr.len) != 0)
    return SysError("connect (UDP) to", &addr, errno);
  return fd;
}

Result<ScopedFd> ListenTcp(const SocketAddress& addr, int backlog, bool reuse_port) {
  auto fd = NewTcpSocket(addr);
  if (!fd) return fd.error();
  if (Status s = SetIntOption(fd->get(), SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR on", &addr);
      !s) {
    return s.error();
  }
  if (reuse_port) {
    if (Status s = SetIntOption(fd->get(), SOL_SOCKET, SO_REUSEPORT, 1, "SO_REUSEPORT on", &addr);
        !s) {
      return s.error();
    }
  }
  if (bind(fd->get(), addr.sa(), addr.len) != 0) return SysError("bind", &addr, errno);
  if (listen(fd->get(), backlog) != 0) return SysError("listen on", &addr, errno);
  return fd;
}

Result<ScopedFd> ConnectTcpNonBlocking(const SocketAddress& addr, int* connect_errno) {
  if (connect_errno != nullptr) *connect_errno = 0;
  auto fd = NewTcpSocket(addr);
  if (!fd) return fd.error();
  if (Status s = SetNoDelay(fd->get()); !s) return s.error();
  if (connect(fd->get(), addr.sa(), addr.len) != 0 && errno != EINPROGRESS) {
    int err = errno;
    if (connect_errno != nullptr) *connect_errno = err;
    return SysError("connect to", &addr, err);
  }
  return fd;
}

Result<ScopedFd> AcceptNonBlocking(int listen_fd, SocketAddress* peer) {
  for (;;) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    int fd =
        accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      if (peer != nullptr) *peer = AddressFromSockaddr(reinterpret_cast<sockaddr*>(&ss), len);
      return ScopedFd(fd);
    }
    // Linux passes errors of the new connection up through accept: retry those.
    switch (errno) {
      case EAGAIN:
        return ScopedFd();
      case EINTR:
      case ECONNABORTED:
      case EPROTO:
        continue;
      default:
        return SysError("accept", nullptr, errno);
    }
  }
}

int SocketError(int fd) {
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

Result<SocketAddress> LocalAddress(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
    return SysError("getsockname", nullptr, errno);
  }
  return AddressFromSockaddr(reinterpret_cast<sockaddr*>(&ss), len);
}

Status SetNoDelay(int fd) {
  return SetIntOption(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY", nullptr);
}

}  // namespace pqc
