// ServerOptions — everything `serve` and the embedded target driver can set. The defaults
// are those of a benchmark target that should never be the bottleneck nor hold memory for
// clients that went away: one thread, generous timeouts, a connection cap per thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/clock.h"
#include "net/address.h"
#include "tls/cert_chain.h"
#include "tls/client_record.h"
#include "tls/context.h"

namespace pqc {

// DefaultServerAddress: 127.0.0.1:8443.
SocketAddress DefaultServerAddress();

struct ServerOptions {
  SocketAddress listen = DefaultServerAddress();  // port 0 = ephemeral (see address())
  // The certificates: in-memory chains (used only during Start: the context keeps its own
  // references), or PEM files; one or more, one per leaf key type (OpenSSL picks by the
  // client's signature_algorithms). Exactly one of the two lists is given.
  std::vector<const CertChain*> chains;
  std::vector<CertKeyFiles> cert_files;
  ServerTlsConfig tls;
  int threads = 1;                           // event loops, one SO_REUSEPORT listener each
  Nanos handshake_timeout = 10'000'000'000;  // accept → handshake done
  Nanos idle_timeout = 60'000'000'000;       // no progress on an established connection
  // handshake_cpu: CPU the server spends on every handshake before it answers the ClientHello
  // (0: none). A server made slower on purpose by a known amount: what a comparison of builds
  // must find.
  Nanos handshake_cpu = 0;
  size_t max_connections_per_thread = 20'000;  // beyond: accepted and closed at once
  // max_connections_per_source: open connections one source (an IPv4 address, an IPv6 /64)
  // may hold across all threads; beyond, accepted and closed at once. 0: no limit.
  size_t max_connections_per_source = 0;
  // quic_retry: HTTP/3's listener validates every client's address with a Retry first (RFC
  // 9000 §8.1.2: one more round trip; a spoofed source cannot make the server hold a
  // connection or send more than three times what it received).
  bool quic_retry = false;
  int backlog = 4096;  // per listener (the kernel caps it)
  // The observatory (serve --clients): every connection's ClientHello and outcome go here
  // (thread-safe; outlives the server). nullptr: nothing is captured, nothing costs.
  ClientRecordSink* clients = nullptr;
};

}  // namespace pqc
