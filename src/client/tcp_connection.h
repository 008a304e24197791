// tcp_connection — one client connection over TCP: connect, TLS handshake (early data when
// the mode asks), N requests of HTTP/1.1 or HTTP/2 (the exchange, http_exchange.h, says what
// to write and what the bytes read mean; HTTP/2 keeps up to the arm's streams in flight, each
// finished one replaced by the next request at once), close; every step timestamped into its
// ConnectionRecord. Non-blocking, driven by the thread's EventLoop.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client/connection.h"
#include "client/http_exchange.h"
#include "core/fd.h"
#include "net/event_loop.h"
#include "tls/inspector.h"
#include "tls/ossl_ptr.h"
#include "tls/ssl_failure.h"

namespace pqc {

class TcpConnection final : public Connection {
 public:
  TcpConnection(ConnectionEnv& env, ConnectionRecord record);
  ~TcpConnection() override;

  // Start: opens the socket; the connection may be done() when this returns (refused).
  void Start() override;
  void Abort(ErrorClass error, std::string detail) override;
  bool done() const override { return state_ == State::kDone; }
  bool idle() const override { return state_ == State::kIdle; }

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
  // FillStreams: begins requests until the arm's streams are in flight (1 but for HTTP/2) or
  // the connection has begun all its requests; the connection then sends them.
  void FillStreams();
  // StampSent: the requests begun since the last stamp are on their way as of `now`.
  void StampSent(Nanos now);
  // Settle: timestamps what the exchange's step did to each request; false once a response
  // failed the connection (a status other than 200).
  bool Settle(const ExchangeStep& step, Nanos now);
  // AfterResponses: every request in flight has its response: the next ones, think time, the
  // ticket still awaited, or the end. Returns whether the state machine should go on.
  bool AfterResponses(Nanos now);
  // Flush: writes what the exchange has to send; false when the socket would block (the
  // connection then waits) or the connection failed.
  bool Flush();
  // FeedBetween: bytes read with no response awaited (idle, waiting for the ticket): HTTP/2's
  // own frames are answered, anything else fails the connection. False once failed.
  bool FeedBetween(std::string_view in, const char* phase);
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

  ScopedFd fd_;
  SslPtr ssl_;
  HandshakeFacts facts_;
  std::unique_ptr<HttpExchange> http_;
  State state_ = State::kConnecting;
  bool registered_ = false;
  uint32_t interest_ = 0;
  TimerId idle_timer_ = 0;
  size_t in_flight_ = 0;  // requests begun whose responses have not ended
  size_t unsent_ = 0;     // index of the first request not yet stamped sent
};

}  // namespace pqc
