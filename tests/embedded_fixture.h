// embedded_fixture — the embedded server as the in-process tests start it: a fresh chain, the
// server on it with a test's groups, tickets and early data, stopped and waited for at the
// end; and a blocking socket with timeouts, so that a server bug fails a test instead of
// hanging it.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/fd.h"
#include "net/address.h"
#include "server/embedded_server.h"
#include "tls/cert_chain.h"

namespace pqc::test {

// FreshChain: a new chain of `spec` ("ecdsa-p256", "ml-dsa-65"); null, with a failure, if
// it cannot be made.
inline std::unique_ptr<CertChain> FreshChain(std::string_view spec) {
  auto parsed = ParseChainSpec(std::string(spec));
  EXPECT_TRUE(parsed.ok()) << spec;
  if (!parsed.ok()) return nullptr;
  auto chain = MakeChain(*parsed);
  EXPECT_TRUE(chain.ok()) << chain.error().message;
  return chain.ok() ? std::make_unique<CertChain>(std::move(*chain)) : nullptr;
}

struct EmbeddedSettings {
  std::string groups = "X25519";
  bool tickets = true;
  uint32_t max_early_data = 0;
  bool h2 = false;  // ALPN h2 besides http/1.1
};

// StartEmbedded: the server at `listen` serving `chain`; null, with a failure, if it did not
// start.
inline std::unique_ptr<EmbeddedServer> StartEmbedded(const SocketAddress& listen,
                                                     const CertChain& chain,
                                                     const EmbeddedSettings& s) {
  ServerOptions so;
  so.listen = listen;
  so.chains = {&chain};
  so.tls.groups = s.groups;
  so.tls.tickets = s.tickets;
  so.tls.max_early_data = s.max_early_data;
  so.tls.h2 = s.h2;
  auto server = EmbeddedServer::Start(so);
  EXPECT_TRUE(server.ok()) << server.error().message;
  return server.ok() ? std::move(*server) : nullptr;
}

// StopEmbedded: stops the server, if there is one, and waits for its threads.
inline void StopEmbedded(std::unique_ptr<EmbeddedServer>& server) {
  if (!server) return;
  server->Stop();
  server->Wait();
  server.reset();
}

// BlockingConnect: a TCP connection with 5 s timeouts both ways (none: refused); `rcvbuf` > 0
// sets a receive buffer that small first (a client that reads little is one the server can
// write little to).
inline ScopedFd BlockingConnect(const SocketAddress& addr, int rcvbuf = 0) {
  ScopedFd fd(::socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (rcvbuf > 0) ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  timeval tv{5, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (::connect(fd.get(), addr.sa(), addr.len) != 0) return ScopedFd();
  return fd;
}

}  // namespace pqc::test
