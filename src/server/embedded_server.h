// EmbeddedServer — the HTTPS target pqc-bench measures against when no external server is
// wanted: TLS 1.3 only, HTTP/1.1 keep-alive, `/` answers "OK\n" and `/payload/<size>` that
// many bytes. N event-loop threads, each with its own SO_REUSEPORT listener and connections,
// counted per thread and merged when the threads have joined.
//
// Start does everything that can fail for a reason the user must see (the certificate OpenSSL
// cannot serve, a group list it rejects, a port in use) before any thread starts, so that a
// running server never has to report a setup error.
#pragma once

#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "core/error.h"
#include "net/address.h"
#include "server/cpu_time.h"
#include "server/server_options.h"
#include "server/server_stats.h"
#include "server/source_limiter.h"
#include "tls/ossl_ptr.h"

namespace pqc {

namespace server {
class Worker;
}  // namespace server

class EmbeddedServer {
 public:
  static Result<std::unique_ptr<EmbeddedServer>> Start(const ServerOptions& options);
  EmbeddedServer(const EmbeddedServer&) = delete;
  EmbeddedServer& operator=(const EmbeddedServer&) = delete;
  // ~EmbeddedServer: stops and joins if Wait was not called.
  ~EmbeddedServer();

  // address: the bound address (the real port when options.listen had port 0).
  SocketAddress address() const { return address_; }
  int threads() const { return static_cast<int>(workers_.size()); }

  // OpenConnections: thread-safe; the connections the threads hold now.
  size_t OpenConnections() const;

  // Stop: thread-safe and idempotent; the loops return promptly, closing their connections.
  void Stop();
  // Wait: joins the threads (call Stop first, or from another thread) and returns the merged
  // stats; later calls return the same. Not to be called from two threads at once.
  ServerStats Wait();

 private:
  EmbeddedServer() = default;

  SslCtxPtr ctx_;
  std::vector<char> payload_;
  std::unique_ptr<server::SourceLimiter> per_source_;  // shared by the workers, when limited
  std::vector<std::unique_ptr<server::Worker>> workers_;
  std::vector<std::thread> threads_;
  SocketAddress address_;
  Nanos started_at_ = 0;
  CpuTime started_cpu_;
  std::optional<ServerStats> result_;
};

}  // namespace pqc
