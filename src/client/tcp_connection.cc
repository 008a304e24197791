#include "client/tcp_connection.h"

#include <fmt/format.h>
#include <openssl/err.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/socket.h"
#include "net/tcp_info.h"
#include "tls/ssl_error.h"
#include "tls/ssl_failure.h"

namespace pqc {

TcpConnection::TcpConnection(ConnectionEnv& env, ConnectionRecord record)
    : Connection(env, std::move(record)) {}

TcpConnection::~TcpConnection() {
  if (idle_timer_ != 0) env_.loop->CancelTimer(idle_timer_);
  Close();
}

void TcpConnection::Start() {
  record_.actual_start = MonotonicNow();
  record_.protocol = env_.options->protocol;
  last_progress_ = record_.actual_start;
  auto http = MakeExchange(env_, record_);
  if (!http) {
    Fail(ErrorClass::kHttp, http.error().message);
    return;
  }
  http_ = std::move(*http);
  int connect_errno = 0;
  auto fd = ConnectTcpNonBlocking(env_.options->target, &connect_errno);
  if (!fd) {
    Fail(connect_errno == ECONNREFUSED ? ErrorClass::kRefused : ErrorClass::kConnect,
         fd.error().message);
    return;
  }
  fd_ = std::move(*fd);
  if (Status s = env_.loop->Add(fd_.get(), kIoWrite, [this](uint32_t ev) { OnEvent(ev); }); !s) {
    Fail(ErrorClass::kConnect, s.error().message);
    return;
  }
  registered_ = true;
  interest_ = kIoWrite;
}

void TcpConnection::OnEvent(uint32_t /*events*/) {
  // Whatever woke us, the state machine asks the socket/TLS what it can do now.
  Advance();
}

void TcpConnection::Advance() {
  bool progressed = true;
  while (progressed && state_ != State::kDone) {
    switch (state_) {
      case State::kConnecting:
        progressed = StepConnect();
        break;
      case State::kEarlyWriting:
        progressed = StepEarlyWrite();
        break;
      case State::kHandshaking:
        progressed = StepHandshake();
        break;
      case State::kSending:
        progressed = StepSend();
        break;
      case State::kReceiving:
        progressed = StepReceive();
        break;
      case State::kIdle:
        progressed = StepIdle();
        break;
      case State::kAwaitTicket:
        progressed = StepAwaitTicket();
        break;
      case State::kDone:
        progressed = false;
        break;
    }
  }
}

bool TcpConnection::StepConnect() {
  int err = SocketError(fd_.get());
  if (err == 0) {
    // Still in progress? A writable socket with no error is connected; otherwise wait.
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    if (getpeername(fd_.get(), reinterpret_cast<sockaddr*>(&peer), &len) != 0) {
      if (errno == ENOTCONN) {
        WaitFor(kIoWrite);
        return false;
      }
      err = errno;
    }
  }
  if (err != 0) {
    Fail(err == ECONNREFUSED   ? ErrorClass::kRefused
         : (err == ECONNRESET) ? ErrorClass::kReset
                               : ErrorClass::kConnect,
         fmt::format("connect to {}: {}", env_.options->target.ToString(), std::strerror(err)));
    return false;
  }
  record_.tcp_established = MonotonicNow();
  last_progress_ = record_.tcp_established;
  ssl_.reset(SSL_new(env_.ctx));
  if (!ssl_ || SSL_set_fd(ssl_.get(), fd_.get()) != 1) {
    Fail(ErrorClass::kTls, SslError("creating the TLS connection").message);
    return false;
  }
  SSL_set_connect_state(ssl_.get());
  // RFC 6066 allows no IP literal as a server name: an address without a name sends none.
  if (!IsIpLiteral(env_.options->server_name)) {
    SSL_set_tlsext_host_name(ssl_.get(), env_.options->server_name.c_str());
  }
  bool early = false;
  // Each ticket once, as RFC 8446 (C.4) asks of clients: a server with anti-replay (which any
  // server allowing early data has) accepts a ticket only once. Warm-up connections take none:
  // their full handshakes fill the store, one ticket each, so that the measured connections
  // that overlap still find one.
  if ((record_.mode == ConnMode::kResume || record_.mode == ConnMode::kEarly) && record_.measured) {
    if (SslSessionPtr session = env_.sessions->TakeOnce()) {
      SSL_set_session(ssl_.get(), session.get());
      record_.offered_session = true;
      early = record_.mode == ConnMode::kEarly && SSL_SESSION_get_max_early_data(session.get()) > 0;
    }
  }
  AttachInspector(ssl_.get(), &facts_);
  if (early) {
    // Every request the arm's streams allow goes as early data (one but for HTTP/2).
    FillStreams();
    if (state_ == State::kDone) return false;
    state_ = State::kEarlyWriting;
  } else {
    state_ = State::kHandshaking;
  }
  return true;
}

// StepEarlyWrite: the first request as early data, written before any handshake message
// has been read (OpenSSL sends the ClientHello with it); the handshake then completes.
bool TcpConnection::StepEarlyWrite() {
  for (std::string_view out = http_->Output(); !out.empty(); out = http_->Output()) {
    size_t n = 0;
    errno = 0;
    if (SSL_write_early_data(ssl_.get(), out.data(), out.size(), &n) != 1) {
      WaitOrFail(ClassifySslResult(ssl_.get(), 0, errno), "sending early data");
      return false;
    }
    http_->Wrote(n);
    record_.early_bytes += static_cast<uint32_t>(n);
  }
  if (!http_->error().empty()) {
    Fail(ErrorClass::kHttp, http_->error());
    return false;
  }
  StampSent(MonotonicNow());
  state_ = State::kHandshaking;
  return true;
}

bool TcpConnection::StepHandshake() {
  errno = 0;  // SSL_ERROR_SYSCALL is told apart by errno: no stale value
  int rc = SSL_do_handshake(ssl_.get());
  if (rc != 1) {
    WaitOrFail(ClassifySslResult(ssl_.get(), rc, errno), "handshake");
    return false;
  }
  record_.tls_done = MonotonicNow();
  last_progress_ = record_.tls_done;
  record_.handshake_bytes_written = BIO_number_written(SSL_get_wbio(ssl_.get()));
  record_.handshake_bytes_read = BIO_number_read(SSL_get_rbio(ssl_.get()));
  record_.handshake_segments_read = DataSegmentsIn(fd_.get());
  RecordNegotiated(facts_, ssl_.get(), record_);
  if (const std::string_view alpn = Describe(env_.options->protocol).alpn; !alpn.empty()) {
    const unsigned char* got = nullptr;
    unsigned int got_len = 0;
    SSL_get0_alpn_selected(ssl_.get(), &got, &got_len);
    const std::string_view chosen(reinterpret_cast<const char*>(got), got_len);
    if (chosen != alpn) {
      Fail(ErrorClass::kHttp,
           fmt::format("the server did not agree to {} (ALPN {}: it chose {}); its target may "
                       "not serve this protocol",
                       Describe(env_.options->protocol).what, alpn,
                       chosen.empty() ? "none" : std::string(chosen)));
      return false;
    }
  }
  if (record_.early_bytes > 0) {
    if (SSL_get_early_data_status(ssl_.get()) == SSL_EARLY_DATA_ACCEPTED) {
      record_.early_data = EarlyData::kAccepted;
      state_ = State::kReceiving;  // the request is on its way already
      return true;
    }
    // Rejected: the server never read it. The same request goes again, now as ordinary
    // application data, and is timed from then.
    record_.early_data = EarlyData::kRejected;
    http_->Rewind();
    unsent_ = 0;
    state_ = State::kSending;
    return true;
  }
  FillStreams();
  return true;
}

void TcpConnection::FillStreams() {
  state_ = State::kSending;
  const size_t streams = std::max<uint32_t>(env_.options->streams, 1);
  while (in_flight_ < streams && requests_.size() < env_.options->requests) {
    requests_.emplace_back();
    ++in_flight_;
    if (Status s = http_->BeginRequest(requests_.size() >= env_.options->requests); !s) {
      Fail(ErrorClass::kHttp, s.error().message);
      return;
    }
  }
}

void TcpConnection::StampSent(Nanos now) {
  for (; unsent_ < requests_.size(); ++unsent_) requests_[unsent_].sent = now;
  last_progress_ = now;
}

bool TcpConnection::Settle(const ExchangeStep& step, Nanos now) {
  for (const RequestEvent& e : step.events) {
    if (e.request >= requests_.size()) {
      Fail(ErrorClass::kHttp, fmt::format("the exchange reported request {} of {} begun",
                                          e.request + 1, requests_.size()));
      return false;
    }
    RequestRecord& req = requests_[e.request];
    if (e.began && req.first_byte == 0) req.first_byte = now;
    if (!e.completed) continue;
    req.last_byte = now;
    req.status = e.status;
    req.body_bytes = e.body_bytes;
    ++record_.request_count;
    --in_flight_;
    if (req.status != 200) {
      Fail(ErrorClass::kHttp, fmt::format("status {}", req.status));
      return false;
    }
  }
  return true;
}

bool TcpConnection::Flush() {
  for (std::string_view out = http_->Output(); !out.empty(); out = http_->Output()) {
    errno = 0;
    const int n = SSL_write(ssl_.get(), out.data(), static_cast<int>(out.size()));
    if (n <= 0) {
      WaitOrFail(ClassifySslResult(ssl_.get(), n, errno),
                 state_ == State::kSending ? "sending request" : "answering the server");
      return false;
    }
    http_->Wrote(static_cast<size_t>(n));
  }
  if (!http_->error().empty()) {
    Fail(ErrorClass::kHttp, http_->error());
    return false;
  }
  return true;
}

bool TcpConnection::FeedBetween(std::string_view in, const char* phase) {
  if (http_->Feed(in).status == ExchangeStep::kError) {
    Fail(ErrorClass::kHttp, fmt::format("{}: {}", phase, http_->error()));
    return false;
  }
  return true;
}

bool TcpConnection::StepSend() {
  if (!Flush()) return false;
  StampSent(MonotonicNow());
  state_ = State::kReceiving;
  return true;
}

bool TcpConnection::StepReceive() {
  // HTTP/2 answers the server's SETTINGS and window updates while a response is on its way.
  if (!Flush()) return false;
  std::vector<char>& buf = env_.read_buffer;
  errno = 0;
  int n = SSL_read(ssl_.get(), buf.data(), static_cast<int>(buf.size()));
  if (n <= 0) {
    const SslFailure f = ClassifySslResult(ssl_.get(), n, errno);
    if (f.outcome == SslOutcome::kClosed) {
      const ExchangeStep step = http_->FeedEof();
      if (step.status == ExchangeStep::kComplete) {
        if (Settle(step, MonotonicNow())) Finish(/*close_notify=*/false);  // the server has closed
        return false;
      }
      Fail(ErrorClass::kClosed, http_->error());
      return false;
    }
    WaitOrFail(f, "reading response");
    return false;
  }
  const Nanos now = MonotonicNow();
  last_progress_ = now;
  const ExchangeStep step = http_->Feed(std::string_view(buf.data(), static_cast<size_t>(n)));
  if (!Settle(step, now)) return false;
  if (step.status == ExchangeStep::kError) {
    Fail(ErrorClass::kHttp, http_->error());
    return false;
  }
  if (step.status == ExchangeStep::kNeedMore) return true;
  if (in_flight_ == 0) return AfterResponses(now);
  // HTTP/2: a finished stream's place takes the next request at once (think time waits for
  // every stream, below).
  if (requests_.size() < env_.options->requests && http_->keep_alive() &&
      env_.options->request_interval == 0) {
    FillStreams();
  }
  return true;
}

bool TcpConnection::AfterResponses(Nanos now) {
  if (requests_.size() < env_.options->requests && http_->keep_alive()) {
    if (env_.options->request_interval > 0) {
      // Think time: the connection stays open and idle, watching for the server closing it.
      state_ = State::kIdle;
      WaitFor(kIoRead);
      idle_timer_ = env_.loop->AddTimer(now + env_.options->request_interval, [this] {
        idle_timer_ = 0;
        if (state_ != State::kIdle) return;
        last_progress_ = MonotonicNow();
        FillStreams();
        Advance();
      });
      return false;
    }
    FillStreams();
    return true;
  }
  if (record_.mode == ConnMode::kEarly && facts_.tickets_received == 0) {
    // A 0.5-RTT response can overtake the ticket, which the server sends once it has the
    // client's Finished: without it the next early connection would have nothing to offer.
    state_ = State::kAwaitTicket;
    WaitFor(kIoRead);
    return true;
  }
  Finish();
  return false;
}

bool TcpConnection::StepAwaitTicket() {
  if (!Flush()) return false;
  std::vector<char>& buf = env_.read_buffer;
  errno = 0;
  const int n = SSL_read(ssl_.get(), buf.data(), static_cast<int>(buf.size()));
  if (n > 0) return FeedBetween({buf.data(), static_cast<size_t>(n)}, "after the response");
  const SslFailure f = ClassifySslResult(ssl_.get(), n, errno);
  if (facts_.tickets_received > 0 || f.outcome == SslOutcome::kClosed) {
    // The response is complete either way: a missing ticket costs the next connection.
    Finish(/*close_notify=*/f.outcome != SslOutcome::kClosed);
    return false;
  }
  if (f.outcome == SslOutcome::kWantRead) return false;
  WaitOrFail(f, "waiting for the session ticket");
  return false;
}

bool TcpConnection::StepIdle() {
  // Readable while idle: a post-handshake message, HTTP/2's own frames, or the server closing
  // the connection.
  if (!Flush()) return false;
  std::vector<char>& buf = env_.read_buffer;
  errno = 0;
  const int n = SSL_read(ssl_.get(), buf.data(), static_cast<int>(buf.size()));
  if (n > 0) return FeedBetween({buf.data(), static_cast<size_t>(n)}, "between requests");
  const SslFailure f = ClassifySslResult(ssl_.get(), n, errno);
  if (f.outcome == SslOutcome::kWantRead) return false;  // still idle
  WaitOrFail(f, "idle keep-alive connection");
  return false;
}

void TcpConnection::Finish(bool close_notify) {
  // TLS 1.3 tickets arrive after the handshake; by the end of a response they are in.
  env_.sessions->Put(SslSessionPtr(SSL_get1_session(ssl_.get())));
  if (close_notify) {
    // HTTP/2's GOAWAY, then close_notify: one attempt each, not waited for.
    http_->Close();
    if (const std::string_view out = http_->Output(); !out.empty()) {
      SSL_write(ssl_.get(), out.data(), static_cast<int>(out.size()));
    }
    SSL_shutdown(ssl_.get());
  } else {
    // The server closed first: nothing may be written (EPIPE, or SIGPIPE), but the ending is
    // clean, and OpenSSL would otherwise mark the session just stored as not resumable.
    SSL_set_shutdown(ssl_.get(), SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
  }
  MarkDone();
}

void TcpConnection::MarkDone() {
  Close();
  record_.closed = MonotonicNow();
  state_ = State::kDone;
  env_.finished.push_back(this);
}

void TcpConnection::Fail(ErrorClass error, std::string detail) {
  if (idle_timer_ != 0) {
    env_.loop->CancelTimer(idle_timer_);
    idle_timer_ = 0;
  }
  record_.error = error;
  record_.error_detail = std::move(detail);
  ERR_clear_error();  // never let this connection's errors be read by the next one
  if (env_.options->streams > 1) {
    // The answered requests first (record_.request_count of them, as a connection's are
    // read): concurrent streams that a failure cut short need not be the last ones begun. A
    // connection that succeeded, or sent one request at a time, has them in order already.
    std::stable_partition(requests_.begin(), requests_.end(),
                          [](const RequestRecord& r) { return r.last_byte != 0; });
  }
  MarkDone();
}

void TcpConnection::Abort(ErrorClass error, std::string detail) {
  if (state_ == State::kDone) return;
  Fail(error, std::move(detail));
}

void TcpConnection::WaitOrFail(const SslFailure& f, const char* phase) {
  switch (f.outcome) {
    case SslOutcome::kWantRead:
      return WaitFor(kIoRead);
    case SslOutcome::kWantWrite:
      return WaitFor(kIoWrite);
    default:
      break;
  }
  // The alert the inspector saw names the server's reason better than the error queue.
  if (facts_.peer_alert >= 0) {
    return Fail(ErrorClass::kTlsAlert,
                fmt::format("{}: {}", phase, SSL_alert_desc_string_long(facts_.peer_alert)));
  }
  switch (f.outcome) {
    case SslOutcome::kClosed:
      return Fail(ErrorClass::kClosed,
                  fmt::format("{}: {}", phase,
                              f.close_notify ? "server sent close_notify"
                                             : "server closed the connection (no close_notify)"));
    case SslOutcome::kReset:
    case SslOutcome::kOther:
      return Fail(ErrorClass::kReset, fmt::format("{}: {}", phase, f.reason));
    case SslOutcome::kPeerAlert:
      return Fail(ErrorClass::kTlsAlert, fmt::format("{}: {}", phase, f.reason));
    default:
      return Fail(ErrorClass::kTls, fmt::format("{}: {}", phase, f.reason));
  }
}

void TcpConnection::WaitFor(uint32_t interest) {
  if (interest == interest_ || !registered_) return;
  if (env_.loop->Modify(fd_.get(), interest)) interest_ = interest;
}

void TcpConnection::Close() {
  if (registered_) {
    env_.loop->Remove(fd_.get());
    registered_ = false;
  }
  ssl_.reset();
  fd_.reset();
}

}  // namespace pqc
