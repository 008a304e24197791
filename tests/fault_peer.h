// fault_peer — a misbehaving TLS server for tests of the load generator's error handling: it
// listens on 127.0.0.1 (an ephemeral port), reads what a real client sends and then does one
// wrong thing on purpose — reset, stall, garbage, an early close, a wrong Content-Length.
// Everything else is real: kernel sockets, and for the faults after the handshake an OpenSSL
// server context with a certificate chain made by the project's own tls/cert_chain code.
//
// One thread accepts; each connection gets a thread with blocking I/O (simple to read, and a
// test's few hundred connections cost nothing). The destructor shuts every socket down, which
// wakes every blocked thread, and joins them all.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/fd.h"
#include "net/address.h"
#include "tls/cert_chain.h"
#include "tls/ossl_ptr.h"

namespace pqc::test {

enum class Fault {
  kNone,                 // a correct server: `/` answers "OK\n" (keep-alive as asked)
  kResetAfterHello,      // reads the ClientHello, then closes with SO_LINGER 0 (an RST)
  kStallAfterHello,      // reads the ClientHello, then never answers (until the client closes)
  kGarbageAfterHello,    // reads the ClientHello, answers bytes that are not TLS
  kCloseBeforeResponse,  // completes the handshake, reads the request, closes
  kShortBody,            // announces Content-Length 100, sends 10 bytes, closes
  kLongBody,             // announces Content-Length 3, sends "OK\n" and 20 more bytes
};

struct FaultPeerOptions {
  Fault fault = Fault::kNone;
  // every: connections 1, 1 + every, 1 + 2 × every, ... get the fault; the others are served
  // correctly (so that an error rate below 100 % can be made).
  uint32_t every = 1;
  // path_prefix: for the faults after the handshake, only requests whose path starts with it
  // get the fault (one external target, a healthy arm and a broken one). Empty = all.
  std::string path_prefix;
  // chain: required for kNone and the faults after the handshake; borrowed during Start.
  const CertChain* chain = nullptr;
};

class FaultPeer {
 public:
  // Start: nullptr (and a gtest failure) if the listener or the TLS context cannot be made.
  static std::unique_ptr<FaultPeer> Start(const FaultPeerOptions& options);
  FaultPeer(const FaultPeer&) = delete;
  FaultPeer& operator=(const FaultPeer&) = delete;
  ~FaultPeer();

  SocketAddress address() const { return address_; }
  uint64_t accepted() const { return accepted_.load(); }
  uint64_t faults() const { return faults_.load(); }

 private:
  FaultPeer() = default;
  void AcceptLoop();
  void Serve(size_t slot, uint64_t index);
  void ServeTls(size_t slot, bool fault);
  // CloseSlot: closes connection `slot` under the lock (so that Stop never shuts down a
  // descriptor number that has been reused), with an RST when `reset`.
  void CloseSlot(size_t slot, bool reset = false);

  FaultPeerOptions options_;
  SslCtxPtr ctx_;
  ScopedFd listener_;
  SocketAddress address_;
  std::thread acceptor_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> faults_{0};
  std::mutex mu_;              // guards fds_ and handlers_
  std::vector<ScopedFd> fds_;  // one per accepted connection; invalid once closed
  std::vector<std::thread> handlers_;
};

// ClosedPort: a loopback address nothing listens on (bound once to learn a free port, then
// closed; nothing in a test re-binds it within the test's time).
SocketAddress ClosedPort();

}  // namespace pqc::test
