// connection — one client connection's state machine: TCP connect, TLS handshake, N HTTP
// requests, close; every step timestamped into its ConnectionRecord. Non-blocking, driven by
// the thread's EventLoop; a failure becomes an error class in the record, never an exception.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client/load_options.h"
#include "client/record.h"
#include "client/session_store.h"
#include "core/fd.h"
#include "http/response_parser.h"
#include "net/event_loop.h"
#include "tls/inspector.h"
#include "tls/ossl_ptr.h"
#include "tls/ssl_failure.h"

namespace pqc {

// ConnectionEnv: what a thread's connections share (owned by the worker).
struct ConnectionEnv {
  EventLoop* loop;
  SSL_CTX* ctx;
  SessionStore* sessions;
  const LoadOptions* options;
  std::string request_keep_alive;           // the request bytes, built once
  std::string request_close;                // the last request of a connection asks to close
  std::vector<char> read_buffer;            // one per thread: responses are consumed as they arrive
  std::vector<class Connection*> finished;  // done since the worker last collected
};

class Connection {
 public:
  Connection(ConnectionEnv& env, ConnectionRecord record);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Start: opens the socket; the connection may be done() when this returns (refused).
  void Start();
  // Abort: ends an unfinished connection with this error (timeouts, drain).
  void Abort(ErrorClass error, std::string detail);

  bool done() const { return state_ == State::kDone; }
  // idle: waiting out --request-interval on its own timer, so not subject to the timeout.
  bool idle() const { return state_ == State::kIdle; }
  Nanos last_progress() const { return last_progress_; }
  ConnectionRecord& record() { return record_; }
  std::vector<RequestRecord>& requests() { return requests_; }

  size_t slot = 0;  // position in the worker's table of live connections

 private:
  // kIdle: between two requests of a keep-alive connection with --request-interval.
  enum class State {
    kConnecting,
    kEarlyWriting,
    kHandshaking,
    kSending,
    kReceiving,
    kAwaitTicket,
    kIdle,
    kDone
  };

  void OnEvent(uint32_t events);
  void Advance();
  bool StepConnect();
  bool StepEarlyWrite();
  bool StepHandshake();
  bool StepSend();
  bool StepReceive();
  bool StepIdle();
  bool StepAwaitTicket();
  void BeginRequest();
  // Finish: the connection succeeded; its session goes to the store. `close_notify`: false
  // once the server has closed, when a write would only draw EPIPE (or SIGPIPE); the ending
  // is then recorded as clean without one.
  void Finish(bool close_notify = true);
  void Fail(ErrorClass error, std::string detail);
  // WaitOrFail: waits for what a non-blocking SSL call asked for, or fails the connection
  // with the class the shared classification (tls/ssl_failure.h) gives its error.
  void WaitOrFail(const SslFailure& f, const char* phase);
  void WaitFor(uint32_t interest);
  void Close();
  void MarkDone();

  ConnectionEnv& env_;
  ConnectionRecord record_;
  std::vector<RequestRecord> requests_;
  ScopedFd fd_;
  SslPtr ssl_;
  HandshakeFacts facts_;
  ResponseParser parser_;
  State state_ = State::kConnecting;
  bool registered_ = false;
  uint32_t interest_ = 0;
  size_t send_offset_ = 0;
  Nanos last_progress_ = 0;
  TimerId idle_timer_ = 0;
};

}  // namespace pqc
