#include "client/handshake_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/ssl.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "net/socket.h"
#include "tls/context.h"
#include "tls/ssl_error.h"
#include "tls/ssl_failure.h"

namespace pqc {
namespace {

// WaitFor: until fd is ready for `events` or the deadline passes.
bool WaitFor(int fd, short events, Nanos deadline) {
  for (;;) {
    const Nanos left = deadline - MonotonicNow();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = poll(&p, 1, static_cast<int>(left / 1'000'000 + 1));
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
  }
}

}  // namespace

Status HandshakeOnce(const LoadOptions& o, Nanos timeout) {
  const Nanos deadline = MonotonicNow() + timeout;
  const std::string where = o.target.ToString();
  auto ctx = MakeClientContext(o.tls);
  if (!ctx) return ctx.error();
  auto fd = ConnectTcpNonBlocking(o.target);
  if (!fd) return fd.error();
  if (!WaitFor(fd->get(), POLLOUT, deadline)) {
    return MakeError(ErrorKind::kSystem, fmt::format("{}: no TCP connection within {} s", where,
                                                     timeout / 1'000'000'000));
  }
  if (int err = SocketError(fd->get()); err != 0) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("connect to {}: {}", where, std::strerror(err)));
  }
  SslPtr ssl(SSL_new(ctx->get()));
  if (!ssl || SSL_set_fd(ssl.get(), fd->get()) != 1) return SslError("creating a TLS connection");
  if (!IsIpLiteral(o.server_name)) SSL_set_tlsext_host_name(ssl.get(), o.server_name.c_str());
  // Bounded by the deadline: each pass waits for the socket the handshake needs next.
  for (;;) {
    errno = 0;
    const int r = SSL_connect(ssl.get());
    if (r == 1) break;
    // The classification every connection uses (tls/ssl_failure.h); it also empties the
    // error queue, so the verification result is what is left to explain a failure.
    const SslFailure f = ClassifySslResult(ssl.get(), r, errno);
    if (f.outcome == SslOutcome::kWantRead || f.outcome == SslOutcome::kWantWrite) {
      const short events = f.outcome == SslOutcome::kWantRead ? POLLIN : POLLOUT;
      if (WaitFor(fd->get(), events, deadline)) continue;
      return MakeError(ErrorKind::kTls, fmt::format("{}: no TLS handshake within {} s", where,
                                                    timeout / 1'000'000'000));
    }
    const long verify = SSL_get_verify_result(ssl.get());
    if (verify != X509_V_OK) {
      return MakeError(
          ErrorKind::kTls,
          fmt::format("{}: the server's certificate failed verification against {}: "
                      "{}",
                      where, TrustDescription(o.tls), X509_verify_cert_error_string(verify)));
    }
    return MakeError(ErrorKind::kTls,
                     fmt::format("{}: TLS 1.3 handshake failed (offering {}): {}", where,
                                 fmt::join(o.tls.groups, ":"),
                                 f.reason.empty() ? "the server closed the connection" : f.reason));
  }
  SSL_shutdown(ssl.get());
  return {};
}

}  // namespace pqc
