// Connection — one accepted TLS connection of the embedded target as a non-blocking state
// machine: handshake, then requests (pipelined ones too) answered one at a time, then
// keep-alive or a lingering close; or, when ALPN chose h2, an HTTP/2 session
// (h2/server_session.h) fed what is read and drained into writes of at most one record. It never
// blocks, never deletes itself and never touches the event loop: each call returns what the owner
// (the Worker) must do next, so lifetime, interest and timers stay in one place.
//
// Memory per connection is bounded: the unparsed rest of a read (pipelined requests), and an
// output buffer of at most one TLS record (response head plus the first body bytes, so a
// small response is one record, as nginx sends it). Bodies come from the shared payload
// buffer in chunks of at most one record, resumed after WANT_WRITE with the same arguments.
// (Namespace pqc::server: the load generator has a Connection and a Worker of its own.)
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/clock.h"
#include "core/fd.h"
#include "h2/server_session.h"
#include "http/request_parser.h"
#include "http/routes.h"
#include "server/client_observer.h"
#include "server/server_stats.h"
#include "tls/ossl_ptr.h"

namespace pqc::server {

// ConnectionEnv: what all connections of one thread share; outlives them.
struct ConnectionEnv {
  Nanos handshake_timeout = 0;
  Nanos idle_timeout = 0;
  Nanos handshake_cpu = 0;              // CPU spent before answering each ClientHello (SpendCpu)
  std::span<const char> payload;        // MakePayloadBuffer(), shared by all threads (read-only)
  std::span<char> scratch;              // this thread's read buffer
  ServerStats* stats = nullptr;         // this thread's counters
  ClientRecordSink* clients = nullptr;  // the observatory's sink (serve --clients), or none
};

class Connection {
 public:
  enum class Next {
    kWait,   // wait for interest(), or the deadline
    kYield,  // more input is already buffered: call OnReady again soon (after other fds)
    kClose,  // done: destroy it (its stats are already counted)
  };

  // ssl must already be attached to fd in accept state.
  Connection(ScopedFd fd, SslPtr ssl, const ConnectionEnv* env, Nanos now);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd() const { return fd_.get(); }
  uint32_t interest() const { return interest_; }
  // deadline: when OnDeadline is due; it only ever moves as the connection makes progress.
  Nanos deadline() const { return deadline_; }

  // OnReady: the fd is ready (or a yield is resumed): make as much progress as possible.
  Next OnReady(Nanos now);
  // OnDeadline: the deadline passed; counts the timeout. The owner then destroys it.
  void OnDeadline();

 private:
  enum class State { kHandshake, kReading, kWriting, kH2, kLingering };
  // Step: the outcome of one phase of OnReady.
  enum class Step { kDone, kBlocked, kFailed };

  Next Handshake();
  Step EarlyData();
  Next Serve();
  Step ReadRequest();
  void PrepareResponse();
  Step WriteResponse();
  // ServeH2: the HTTP/2 session's turn: its output written, the client's bytes fed to it.
  Next ServeH2();
  // StartH2: serving HTTP/2 once the handshake completed (the session made then, or with the
  // early data).
  Next StartH2();
  bool MakeH2();
  // FrameH2: the session's next frames into out_ once the last are written (false: failed,
  // counted); FeedH2Pending: what was read before the session's turn, fed to it.
  bool FrameH2();
  void FeedH2Pending();
  // WriteH2Early: the session's output as early data (0.5-RTT), until it has no more.
  Step WriteH2Early();
  bool AlpnIsH2() const;
  // H2Blocked: Blocked for an HTTP/2 connection, where a quiet client's close is no failure.
  Next H2Blocked(int rc, int saved_errno);
  Next BeginLinger();
  Next Linger();
  // Blocked: interprets a failed SSL call; kBlocked after setting interest, else counts the
  // failure and returns kFailed.
  Step Blocked(int rc, int saved_errno);
  bool HasBufferedInput() const;

  ScopedFd fd_;
  SslPtr ssl_;
  const ConnectionEnv* env_;
  ServerStats& stats_;
  State state_ = State::kHandshake;
  uint32_t interest_;
  Nanos deadline_;
  Nanos now_ = 0;  // of the current OnReady call

  RequestParser parser_;
  bool mid_request_ = false;  // bytes of an unfinished request have arrived
  std::string pending_;       // read but not yet parsed (pipelined requests)
  size_t pending_off_ = 0;

  std::string out_;  // response head + first body bytes; at most one record
  bool out_sent_ = false;
  bool keep_alive_ = false;
  uint64_t body_offset_ = 0;  // next body byte to send from the payload buffer
  uint64_t body_left_ = 0;

  // Early data (a server whose tickets allow it): read until its end, and the request it
  // carries answered before the handshake completes (0.5-RTT), with SSL_write_early_data.
  bool early_read_done_ = false;
  bool early_writing_ = false;   // the early request's response is being written
  bool early_answered_ = false;  // it has been
  bool cpu_spent_ = false;       // ConnectionEnv::handshake_cpu, once

  std::unique_ptr<ClientObserver> observer_;  // when env->clients is set
  std::unique_ptr<h2::ServerSession> h2_;     // when ALPN chose h2
  size_t out_off_ = 0;                        // of out_, written (HTTP/2)
};

}  // namespace pqc::server
