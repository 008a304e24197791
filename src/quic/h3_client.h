// h3_client — one client connection over QUIC: OpenSSL's QUIC client on a connected UDP
// socket, the TLS handshake, then HTTP/3 GET requests (nghttp3), one after another, each
// timestamped like a request over TCP. Non-blocking: the caller waits for fd() to turn
// readable or for Deadline(), then calls Advance(); nothing here sleeps.
// Phases (docs/methodology.md): no connect; the handshake runs from the first Initial sent
// (Open) to the handshake's completion; ttfb and response as over TCP.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "core/fd.h"
#include "net/address.h"
#include "quic/h3_streams.h"
#include "quic/wire_counts.h"
#include "tls/ossl_ptr.h"

namespace pqc::quic {

struct H3Target {
  SocketAddress server;
  std::string server_name = "localhost";  // SNI and :authority
  std::string path = "/";
  uint32_t requests = 1;  // on this connection, one after another
};

struct H3Response {
  Nanos sent = 0;        // request handed to QUIC
  Nanos first_byte = 0;  // first body byte (or the end of a bodiless response)
  Nanos last_byte = 0;   // response complete
  uint32_t status = 0;
  uint64_t body_bytes = 0;
};

// H3Failure: why a connection failed, for the load client's error classes.
enum class H3Failure {
  kNone,
  kSetup,    // the socket or the QUIC object could not be made
  kRefused,  // nothing ever came back and the socket failed (ICMP port unreachable)
  kTls,      // the local TLS stack failed the handshake (e.g. the certificate did not verify)
  kPeerTls,  // the server closed with a TLS alert (a QUIC CRYPTO_ERROR, RFC 9001 §4.8)
  kClosed,   // the server closed the connection (any other error code)
  kHttp,     // HTTP/3 framing, QPACK or the response
};

class H3Client {
 public:
  enum class State { kHandshaking, kRequesting, kDone, kFailed };

  // Open: sends the first Initial. `ctx` is a QUIC client context (Transport::kQuic),
  // `session` one to resume (nullptr: a fresh handshake). Borrowed; ctx outlives this.
  static Result<std::unique_ptr<H3Client>> Open(SSL_CTX* ctx, const H3Target& target,
                                                SSL_SESSION* session = nullptr);
  H3Client(const H3Client&) = delete;
  H3Client& operator=(const H3Client&) = delete;
  ~H3Client();

  int fd() const { return fd_.get(); }
  // Advance: progress on whatever arrived or timed out.
  State Advance();
  State state() const { return state_; }
  // Deadline: the monotonic time by which Advance must run even if nothing arrives (QUIC's
  // loss and ACK timers); 0 when there is none.
  Nanos Deadline() const;
  bool WantsWrite() const;
  // Close: ends the connection (CONNECTION_CLOSE, not waiting for the peer).
  void Close();

  SSL* ssl() const { return ssl_.get(); }
  const QuicWatch& watch() const { return *watch_; }
  Nanos started() const { return started_; }
  Nanos handshake_done() const { return handshake_done_; }
  const std::vector<H3Response>& responses() const { return responses_; }
  const std::string& error() const { return error_; }
  H3Failure failure() const { return failure_; }
  // handshake_wire: the datagram counts when the handshake completed (the client's Finished,
  // which leaves with the first request, not among them).
  const WireCounts& handshake_wire() const { return handshake_wire_; }

  // Session callbacks' entry points.
  void OnStatus(int64_t stream, uint32_t status);
  void OnBody(int64_t stream, size_t bytes);
  void OnEnd(int64_t stream);
  void OnClose(int64_t stream);

 private:
  H3Client() = default;
  State Fail(H3Failure kind, std::string why);
  Status StartSession();
  Status SendRequest();
  Status Pump();

  ScopedFd fd_;
  // The watch outlives the SSL object that writes into it (members die in reverse order).
  std::unique_ptr<QuicWatch> watch_ = std::make_unique<QuicWatch>();
  SslPtr ssl_;
  std::unique_ptr<H3Streams> streams_;
  H3Target target_;
  State state_ = State::kHandshaking;
  Nanos started_ = 0;
  Nanos handshake_done_ = 0;
  int64_t request_stream_ = -1;
  std::vector<H3Response> responses_;
  std::string error_;
  H3Failure failure_ = H3Failure::kNone;
  WireCounts handshake_wire_;
};

// Fetch: one connection to completion, waiting with poll(2), at most `timeout` in all; the
// client afterwards (its state kDone or kFailed, its error()).
Result<std::unique_ptr<H3Client>> Fetch(SSL_CTX* ctx, const H3Target& target, Nanos timeout,
                                        SSL_SESSION* session = nullptr);

}  // namespace pqc::quic
