// h3_server — the embedded target over QUIC: HTTP/3 (nghttp3) on OpenSSL's QUIC server
// (SSL_new_listener), answering the same routes as over TCP (http/routes.h: "/" and
// "/payload/<size>") with the same TLS context settings (groups, chains, tickets).
// One thread per listener: with `threads` > 1 each thread has its own UDP socket on the one
// port (SO_REUSEPORT), and the kernel keeps each client's datagrams on one of them, as a
// connection's 4-tuple never changes here (no migration).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/fd.h"
#include "net/address.h"
#include "tls/ossl_ptr.h"

namespace pqc::quic {

struct H3ServerConfig {
  SocketAddress listen;    // UDP; port 0 = an ephemeral one (port() says which)
  SSL_CTX* ctx = nullptr;  // a QUIC server context (Transport::kQuic); borrowed
  unsigned threads = 1;
  // validate_address: a Retry before every handshake (RFC 9000 §8.1.2), one more round trip
  // that lifts the anti-amplification limit at once. Off by default, as in nginx
  // (quic_retry off) — OpenSSL's listener would otherwise send one to every client.
  bool validate_address = false;
  uint32_t max_connections = 100'000;  // per thread; beyond it new ones are refused
};

// H3ServerStats: summed over threads once the server has stopped.
struct H3ServerStats {
  uint64_t connections = 0;         // accepted
  uint64_t handshakes_failed = 0;   // closed before the handshake completed
  uint64_t handshakes_full = 0;     // completed, with a certificate
  uint64_t handshakes_resumed = 0;  // completed on a ticket (PSK)
  uint64_t requests = 0;            // answered
  uint64_t h3_errors = 0;           // connections closed for an HTTP/3 error
};

class H3Server {
 public:
  static Result<std::unique_ptr<H3Server>> Start(const H3ServerConfig& cfg);
  H3Server(const H3Server&) = delete;
  H3Server& operator=(const H3Server&) = delete;
  ~H3Server();

  uint16_t port() const { return port_; }
  // Stop: wakes every thread (an eventfd they all poll), ends and joins them; idempotent.
  void Stop();
  // OpenConnections: thread-safe; the connections the threads hold now.
  size_t OpenConnections() const;
  // stats: valid after Stop.
  H3ServerStats stats() const;

  struct Worker;

 private:
  H3Server() = default;

  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  // stop_wake_: an eventfd made readable by Stop, beside each worker's socket in its poll, so
  // that an idle worker sleeps until a datagram or a QUIC timer is due: a 50 ms stop check
  // woke every idle worker 20 times a second for a pass over its listener and connections,
  // CPU that a server's per-handshake cost then counted at low rates.
  ScopedFd stop_wake_;
  std::vector<char> payload_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
};

}  // namespace pqc::quic
