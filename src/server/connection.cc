#include "server/connection.h"

#include <openssl/err.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "http/payload.h"
#include "net/event_loop.h"
#include "server/cpu_time.h"
#include "tls/ssl_failure.h"

namespace pqc::server {
namespace {

// Fairness: one connection gives the loop back after this many pipelined requests or
// response chunks, so that a fast client cannot starve the others of its thread.
constexpr int kRequestsPerWake = 32;
constexpr int kChunksPerWake = 64;
// kLingerTime: how long a closing connection keeps draining what the client still sends, so
// that unread input does not make the kernel reset the connection before the client has read
// the response (nginx's lingering close). The idle timeout caps it too.
constexpr Nanos kLingerTime = 2'000'000'000;

}  // namespace

Connection::Connection(ScopedFd fd, SslPtr ssl, const ConnectionEnv* env, Nanos now)
    : fd_(std::move(fd)),
      ssl_(std::move(ssl)),
      env_(env),
      stats_(*env->stats),
      interest_(kIoRead),
      deadline_(now + env->handshake_timeout) {
  if (env->clients != nullptr) {
    observer_ = std::make_unique<ClientObserver>(ssl_.get(), fd_.get(), env->clients);
  }
}

// The observer finishes (and hands its record over) before the SSL it reads is freed.
Connection::~Connection() {
  observer_.reset();
}

Connection::Next Connection::OnReady(Nanos now) {
  now_ = now;
  switch (state_) {
    case State::kHandshake:
      return Handshake();
    case State::kReading:
    case State::kWriting:
      return Serve();
    case State::kH2:
      return ServeH2();
    case State::kLingering:
      return Linger();
  }
  return Next::kClose;
}

void Connection::OnDeadline() {
  switch (state_) {
    case State::kHandshake:
      ++stats_.handshake_failures.timeout;
      break;
    case State::kReading:
      ++stats_.idle_timeouts;
      if (!mid_request_) {  // say goodbye properly to a keep-alive client; best effort
        SSL_shutdown(ssl_.get());
        ERR_clear_error();
      }
      break;
    case State::kWriting:
    case State::kH2:
      ++stats_.idle_timeouts;
      break;
    case State::kLingering:
      break;
  }
}

Connection::Next Connection::Handshake() {
  // serve --handshake-cpu: spent once the ClientHello is here and before it is answered, so
  // the client's handshake waits for it as it waits for the server's own crypto.
  if (env_->handshake_cpu > 0 && !cpu_spent_) {
    int waiting = 0;
    if (ioctl(fd_.get(), FIONREAD, &waiting) == 0 && waiting > 0) {
      cpu_spent_ = true;
      SpendCpu(env_->handshake_cpu);
    }
  }
  if (!early_read_done_ && SSL_get_max_early_data(ssl_.get()) > 0) {
    const Step s = EarlyData();
    if (s != Step::kDone) return s == Step::kBlocked ? Next::kWait : Next::kClose;
  }
  errno = 0;
  int rc = SSL_do_handshake(ssl_.get());
  if (rc != 1) return Blocked(rc, errno) == Step::kBlocked ? Next::kWait : Next::kClose;
  if (observer_) observer_->HandshakeDone(ssl_.get());
  if (SSL_session_reused(ssl_.get()) == 1) {
    ++stats_.handshakes_resumed;
  } else {
    ++stats_.handshakes_full;
  }
  if (SSL_get_early_data_status(ssl_.get()) == SSL_EARLY_DATA_ACCEPTED) {
    ++stats_.early_data_accepted;
  }
  state_ = State::kReading;
  deadline_ = now_ + env_->idle_timeout;
  if (AlpnIsH2()) return StartH2();
  // The handshake had to complete even after an answered `Connection: close` request: its
  // tickets are what the client's next early connection offers.
  if (early_answered_ && !keep_alive_) return BeginLinger();
  return Serve();
}

Connection::Step Connection::EarlyData() {
  for (;;) {
    if (early_writing_) {
      const Step s = WriteResponse();
      if (s != Step::kDone) return s;
      early_writing_ = false;
      early_answered_ = true;
      parser_.Reset();
    }
    if (h2_) {  // what the session answers to early frames goes out now (0.5-RTT)
      const Step s = WriteH2Early();
      if (s != Step::kDone) return s;
    }
    if (early_read_done_) return Step::kDone;
    size_t n = 0;
    errno = 0;
    const int r = SSL_read_early_data(ssl_.get(), env_->scratch.data(), env_->scratch.size(), &n);
    if (r == SSL_READ_EARLY_DATA_ERROR) return Blocked(0, errno);
    if (r == SSL_READ_EARLY_DATA_FINISH) early_read_done_ = true;
    if (n > 0) {
      stats_.bytes_received += n;
      stats_.early_data_bytes += n;
      pending_.append(env_->scratch.data(), n);
    }
    // HTTP/2: ALPN was chosen with the ClientHello, so the session starts with the early
    // bytes, and its SETTINGS and its answer to the early request go out as 0.5-RTT data,
    // like HTTP/1.1's (every request the early bytes hold: HTTP/2's streams need no turn).
    if (AlpnIsH2()) {
      if (!h2_ && !MakeH2()) return Step::kFailed;
      FeedH2Pending();
      continue;
    }
    // One request is answered early (a client sends its first one there); what follows it
    // waits, as pipelined input, for the handshake to complete.
    if (!early_answered_ && pending_off_ < pending_.size()) {
      mid_request_ = true;
      const ParseResult p = parser_.Feed(std::string_view(pending_).substr(pending_off_));
      pending_off_ += p.consumed;
      if (p.status != ParseStatus::kNeedMore) {
        PrepareResponse();
        early_writing_ = true;
      }
    }
  }
}

Connection::Next Connection::Serve() {
  for (int served = 0;;) {
    if (state_ == State::kWriting) {
      Step s = WriteResponse();
      if (s != Step::kDone) return s == Step::kBlocked ? Next::kWait : Next::kClose;
      if (!keep_alive_) return BeginLinger();
      state_ = State::kReading;
      parser_.Reset();
      deadline_ = now_ + env_->idle_timeout;
      if (++served >= kRequestsPerWake) {
        if (HasBufferedInput()) return Next::kYield;
        interest_ = kIoRead;  // whatever is still in the socket wakes the loop again
        return Next::kWait;
      }
    }
    Step s = ReadRequest();
    if (s != Step::kDone) return s == Step::kBlocked ? Next::kWait : Next::kClose;
    PrepareResponse();
    state_ = State::kWriting;
  }
}

Connection::Step Connection::ReadRequest() {
  for (;;) {
    if (pending_off_ < pending_.size()) {
      mid_request_ = true;
      ParseResult r = parser_.Feed(std::string_view(pending_).substr(pending_off_));
      pending_off_ += r.consumed;
      if (pending_off_ >= pending_.size()) {
        pending_.clear();
        pending_off_ = 0;
      }
      if (r.status != ParseStatus::kNeedMore) return Step::kDone;
    }
    // The deadline does not move while a request arrives: a client trickling a header byte
    // by byte is still cut off one idle timeout after its previous response.
    size_t n = 0;
    errno = 0;
    int rc = SSL_read_ex(ssl_.get(), env_->scratch.data(), env_->scratch.size(), &n);
    if (rc != 1) return Blocked(rc, errno);
    stats_.bytes_received += n;
    mid_request_ = true;
    std::string_view in(env_->scratch.data(), n);
    ParseResult r = parser_.Feed(in);
    if (r.status == ParseStatus::kNeedMore) continue;
    if (r.status == ParseStatus::kComplete) pending_.assign(in.substr(r.consumed));
    return Step::kDone;
  }
}

void Connection::PrepareResponse() {
  mid_request_ = false;
  ++stats_.requests;
  if (observer_) {
    observer_->FirstRequest(parser_.user_agent());
    observer_.reset();
  }
  Route route;
  bool head = false;
  if (parser_.status() == ParseStatus::kError) {
    int status = StatusForRequestError(parser_.error_class());
    switch (status) {
      case 405:
        ++stats_.methods_not_allowed;
        break;
      case 431:
        ++stats_.heads_too_large;
        break;
      default:
        ++stats_.bad_requests;
        break;
    }
    route = ErrorRoute(status);
    keep_alive_ = false;
  } else {
    route = ResolveRoute(parser_.target());
    keep_alive_ = parser_.keep_alive();
    head = parser_.is_head();
    if (route.status == 404) ++stats_.not_found;
  }
  out_.clear();
  AppendResponseHead(route, keep_alive_, &out_);
  out_sent_ = false;
  body_offset_ = 0;
  body_left_ = 0;
  if (head) return;
  if (!route.is_payload) {
    out_.append(route.text);
    return;
  }
  // The head and the first body bytes share one record.
  size_t room = out_.size() < kWriteChunk ? kWriteChunk - out_.size() : 0;
  std::span<const char> first =
      PayloadChunk(env_->payload, 0, std::min<uint64_t>(route.body_size, room));
  out_.append(first.data(), first.size());
  body_offset_ = first.size();
  body_left_ = route.body_size - first.size();
}

Connection::Step Connection::WriteResponse() {
  for (int chunks = 0; chunks < kChunksPerWake; ++chunks) {
    std::span<const char> chunk;
    if (!out_sent_) {
      chunk = std::span<const char>(out_.data(), out_.size());
    } else if (body_left_ > 0) {
      chunk = PayloadChunk(env_->payload, body_offset_, body_left_);
    } else {
      return Step::kDone;
    }
    // Without SSL_MODE_ENABLE_PARTIAL_WRITE a success wrote all of chunk; after WANT_WRITE
    // the retry passes the same bytes, as OpenSSL requires.
    size_t n = 0;
    errno = 0;
    int rc = early_writing_ ? SSL_write_early_data(ssl_.get(), chunk.data(), chunk.size(), &n)
                            : SSL_write_ex(ssl_.get(), chunk.data(), chunk.size(), &n);
    if (rc != 1) return Blocked(rc, errno);
    stats_.bytes_sent += n;
    deadline_ = now_ + env_->idle_timeout;
    if (!out_sent_) {
      out_sent_ = true;
    } else {
      body_offset_ += n;
      body_left_ -= n;
    }
  }
  if (!out_sent_ || body_left_ > 0) {
    interest_ = kIoWrite;  // level-triggered: back as soon as the other fds had their turn
    return Step::kBlocked;
  }
  return Step::kDone;
}

Connection::Next Connection::BeginLinger() {
  SSL_shutdown(ssl_.get());  // close_notify, best effort (the response is already sent)
  ERR_clear_error();
  ssl_.reset();
  ::shutdown(fd_.get(), SHUT_WR);
  state_ = State::kLingering;
  interest_ = kIoRead;
  deadline_ = now_ + std::min(kLingerTime, env_->idle_timeout);
  return Linger();
}

Connection::Next Connection::Linger() {
  for (int reads = 0; reads < kChunksPerWake; ++reads) {
    ssize_t n = ::recv(fd_.get(), env_->scratch.data(), env_->scratch.size(), 0);
    if (n > 0) continue;
    if (n == 0) return Next::kClose;  // the client has closed too: done
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Next::kWait;
    return Next::kClose;
  }
  return Next::kWait;
}

Connection::Step Connection::Blocked(int rc, int saved_errno) {
  SslFailure f = ClassifySslResult(ssl_.get(), rc, saved_errno);
  switch (f.outcome) {
    case SslOutcome::kWantRead:
      interest_ = kIoRead;
      return Step::kBlocked;
    case SslOutcome::kWantWrite:
      interest_ = kIoWrite;
      return Step::kBlocked;
    default:
      break;
  }
  if (observer_ && state_ == State::kHandshake) observer_->HandshakeFailed(f.reason);
  if (!f.reason.empty()) stats_.last_tls_error = std::move(f.reason);
  if (state_ == State::kHandshake) {
    HandshakeFailures& h = stats_.handshake_failures;
    switch (f.outcome) {
      case SslOutcome::kClosed:
        ++h.closed;
        break;
      case SslOutcome::kReset:
        ++h.reset;
        break;
      case SslOutcome::kPeerAlert:
        ++h.peer_alert;
        break;
      case SslOutcome::kProtocol:
        ++h.protocol;
        break;
      default:
        ++h.other;
        break;
    }
    return Step::kFailed;
  }
  switch (f.outcome) {
    case SslOutcome::kClosed:
      if ((state_ == State::kReading && !mid_request_) || state_ == State::kH2) {
        ++stats_.closed_by_client;
        // Answer the client's close_notify: OpenSSL removes the session of a connection freed
        // without one from the server's cache.
        SSL_shutdown(ssl_.get());
        ERR_clear_error();
      } else {
        ++stats_.truncated;
      }
      break;
    case SslOutcome::kReset:
      ++stats_.resets;
      break;
    default:
      ++stats_.tls_errors;
      break;
  }
  return Step::kFailed;
}

bool Connection::AlpnIsH2() const {
  const unsigned char* alpn = nullptr;
  unsigned int len = 0;
  SSL_get0_alpn_selected(ssl_.get(), &alpn, &len);
  return len == 2 && alpn[0] == 'h' && alpn[1] == '2';
}

bool Connection::MakeH2() {
  auto session = h2::ServerSession::Make(env_->payload);
  if (!session) {
    stats_.last_tls_error = session.error().message;
    ++stats_.tls_errors;
    return false;
  }
  h2_ = std::move(*session);
  out_.clear();
  out_off_ = 0;
  return true;
}

bool Connection::FrameH2() {
  if (out_off_ < out_.size()) return true;  // the last frames are still being written
  out_.clear();
  out_off_ = 0;
  // At most about one record framed at a time: what a connection holds stays bounded however
  // much its client asks for.
  if (Status s = h2_->Output(out_, kWriteChunk); !s) {
    stats_.last_tls_error = s.error().message;
    ++stats_.tls_errors;
    return false;
  }
  return true;
}

void Connection::FeedH2Pending() {
  if (pending_off_ >= pending_.size()) return;
  h2_->Feed(std::string_view(pending_).substr(pending_off_));  // a failure queues its GOAWAY
  pending_.clear();
  pending_off_ = 0;
}

Connection::Step Connection::WriteH2Early() {
  for (int chunks = 0; chunks < kChunksPerWake; ++chunks) {
    if (!FrameH2()) return Step::kFailed;
    if (out_off_ == out_.size()) return Step::kDone;
    // A retry after WANT_WRITE passes the same bytes, as OpenSSL requires.
    size_t n = 0;
    errno = 0;
    const int rc =
        SSL_write_early_data(ssl_.get(), out_.data() + out_off_, out_.size() - out_off_, &n);
    if (rc != 1) return Blocked(rc, errno);
    stats_.bytes_sent += n;
    out_off_ += n;
    deadline_ = now_ + env_->idle_timeout;
  }
  interest_ = kIoWrite;  // more to write: back after the other connections had their turn
  return Step::kBlocked;
}

Connection::Next Connection::StartH2() {
  // The session may have begun with early data (0.5-RTT), its output then all written.
  if (!h2_ && !MakeH2()) return Next::kClose;
  state_ = State::kH2;
  observer_.reset();  // the ClientHello and handshake are recorded; no User-Agent is read here
  FeedH2Pending();
  return ServeH2();
}

Connection::Next Connection::ServeH2() {
  for (int rounds = 0; rounds < kChunksPerWake; ++rounds) {
    const h2::ServerCounts counts = h2_->TakeCounts();
    stats_.requests += counts.requests;
    stats_.not_found += counts.not_found;
    stats_.bad_requests += counts.bad_requests;
    if (!FrameH2()) return Next::kClose;
    if (out_off_ < out_.size()) {
      const size_t len = std::min(out_.size() - out_off_, kWriteChunk);
      size_t n = 0;
      errno = 0;
      const int rc = SSL_write_ex(ssl_.get(), out_.data() + out_off_, len, &n);
      if (rc != 1) return H2Blocked(rc, errno);
      stats_.bytes_sent += n;
      out_off_ += n;
      deadline_ = now_ + env_->idle_timeout;
      continue;
    }
    // Nothing left to write: a session that has ended (its GOAWAY is out) closes.
    if (h2_->Ending() || h2_->Done()) {
      if (h2_->Failed()) {
        ++stats_.h2_protocol_errors;
        stats_.last_h2_error = h2_->error().empty()
                                   ? "the client went past a limit of the session (GOAWAY)"
                                   : h2_->error();
      }
      return BeginLinger();
    }
    size_t n = 0;
    errno = 0;
    const int rc = SSL_read_ex(ssl_.get(), env_->scratch.data(), env_->scratch.size(), &n);
    if (rc != 1) return H2Blocked(rc, errno);
    stats_.bytes_received += n;
    deadline_ = now_ + env_->idle_timeout;
    h2_->Feed(std::string_view(env_->scratch.data(), n));  // a failure queues its GOAWAY
  }
  if (HasBufferedInput() || out_off_ < out_.size()) return Next::kYield;
  interest_ = kIoRead;
  return Next::kWait;
}

Connection::Next Connection::H2Blocked(int rc, int saved_errno) {
  // A client that said GOAWAY, or has no stream open, may close or reset the connection while
  // the session still acknowledges its last frames (Chromium does, at exit: a broken pipe on
  // the server's write): that is its leaving, as between two HTTP/1.1 requests, not a failure.
  const SslFailure f = ClassifySslResult(ssl_.get(), rc, saved_errno);
  if (h2_->Quiet() && f.outcome != SslOutcome::kWantRead && f.outcome != SslOutcome::kWantWrite) {
    ++stats_.closed_by_client;
    ERR_clear_error();
    return Next::kClose;
  }
  return Blocked(rc, saved_errno) == Step::kBlocked ? Next::kWait : Next::kClose;
}

bool Connection::HasBufferedInput() const {
  return pending_off_ < pending_.size() || (ssl_ && SSL_has_pending(ssl_.get()) == 1);
}

}  // namespace pqc::server
