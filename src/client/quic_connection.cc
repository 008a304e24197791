#include "client/quic_connection.h"

#include <fmt/format.h>
#include <openssl/err.h>

#include "quic/wire_counts.h"

namespace pqc {
namespace {

ErrorClass ClassOf(quic::H3Failure f) {
  switch (f) {
    case quic::H3Failure::kSetup:
      return ErrorClass::kConnect;
    case quic::H3Failure::kRefused:
      return ErrorClass::kRefused;
    case quic::H3Failure::kPeerTls:
      return ErrorClass::kTlsAlert;
    case quic::H3Failure::kClosed:
      return ErrorClass::kClosed;
    case quic::H3Failure::kHttp:
      return ErrorClass::kHttp;
    case quic::H3Failure::kTls:
    case quic::H3Failure::kNone:
      break;
  }
  return ErrorClass::kTls;
}

}  // namespace

QuicConnection::QuicConnection(ConnectionEnv& env, ConnectionRecord record)
    : Connection(env, std::move(record)) {
  record_.protocol = Protocol::kH3;
}

QuicConnection::~QuicConnection() {
  Release();
}

void QuicConnection::Start() {
  record_.actual_start = MonotonicNow();
  last_progress_ = record_.actual_start;
  const LoadOptions& o = *env_.options;
  SslSessionPtr session;
  // Each ticket once (RFC 8446 C.4), and warm-up connections take none, as over TCP.
  if (record_.mode == ConnMode::kResume && record_.measured) {
    session = env_.sessions->TakeOnce();
    record_.offered_session = session != nullptr;
  }
  quic::H3Target target{o.target, o.server_name, o.path, o.requests};
  auto client = quic::H3Client::Open(env_.ctx, target, session.get());
  if (!client) {
    Fail(ErrorClass::kConnect, client.error().message);
    return;
  }
  client_ = std::move(*client);
  // Open sent the first Initial: the handshake is timed from then (there is no connect).
  record_.tcp_established = client_->started();
  if (Status s = env_.loop->Add(client_->fd(), kIoRead, [this](uint32_t) { Step(); }); !s) {
    Fail(ErrorClass::kConnect, s.error().message);
    return;
  }
  registered_ = true;
  interest_ = kIoRead;
  Step();
}

void QuicConnection::Step() {
  if (done_) return;
  const uint32_t received = client_->watch().wire.datagrams_received;
  const quic::H3Client::State state = client_->Advance();
  if (client_->watch().wire.datagrams_received != received) last_progress_ = MonotonicNow();
  if (!handshake_recorded_ && client_->handshake_done() != 0) RecordHandshake();
  if (!RecordRequests()) return;
  if (state == quic::H3Client::State::kFailed) {
    Fail(ClassOf(client_->failure()), client_->error());
    return;
  }
  if (state == quic::H3Client::State::kDone) {
    Finish();
    return;
  }
  Rearm();
}

void QuicConnection::Rearm() {
  const uint32_t want = client_->WantsWrite() ? (kIoRead | kIoWrite) : kIoRead;
  if (want != interest_ && env_.loop->Modify(client_->fd(), want)) interest_ = want;
  // QUIC's timers (loss detection, ACK delay, idle) as one loop timer at the earliest, moved
  // whenever that changes. Keeping an earlier pending timer instead (to save the heap's two
  // operations per datagram) left connections open until their timeout through 5 % loss in
  // the ASan build (quic_link_test, 2 of 3 runs; 0 of 4 with this).
  const Nanos at = client_->Deadline();
  if (at == timer_at_ && timer_ != 0) return;
  if (timer_ != 0) env_.loop->CancelTimer(timer_);
  timer_ = 0;
  timer_at_ = at;
  if (at != 0) {
    timer_ = env_.loop->AddTimer(at, [this] {
      timer_ = 0;
      timer_at_ = 0;
      Step();
    });
  }
}

void QuicConnection::RecordHandshake() {
  handshake_recorded_ = true;
  record_.tls_done = client_->handshake_done();
  const quic::WireCounts& w = client_->handshake_wire();
  record_.handshake_bytes_written = w.bytes_sent;
  record_.handshake_bytes_read = w.bytes_received;
  record_.handshake_datagrams_sent = w.datagrams_sent;
  record_.handshake_datagrams_received = w.datagrams_received;
  record_.initial_datagrams = w.first_flight_datagrams;
  record_.amplification_limited = quic::AmplificationLimited(w);
  record_.retried = w.received_retry;
  RecordNegotiated(client_->watch().facts, client_->ssl(), record_);
}

bool QuicConnection::RecordRequests() {
  const auto& responses = client_->responses();
  // A response is recorded once complete; the one in flight is taken by Fail if it never ends.
  while (responses_seen_ < responses.size() && responses[responses_seen_].last_byte != 0) {
    const quic::H3Response& r = responses[responses_seen_++];
    requests_.push_back({r.sent, r.first_byte, r.last_byte, r.status, r.body_bytes});
    ++record_.request_count;
    if (r.status != 200) {
      Fail(ErrorClass::kHttp, fmt::format("status {}", r.status));
      return false;
    }
  }
  return true;
}

void QuicConnection::Finish() {
  // The tickets came after the handshake, before the responses: they are in by now.
  if (SSL_SESSION* s = SSL_get1_session(client_->ssl())) env_.sessions->Put(SslSessionPtr(s));
  client_->Close();
  MarkDone();
}

void QuicConnection::Fail(ErrorClass error, std::string detail) {
  record_.error = error;
  record_.error_detail = std::move(detail);
  ERR_clear_error();  // never let this connection's errors be read by the next one
  MarkDone();
}

void QuicConnection::Abort(ErrorClass error, std::string detail) {
  if (done_) return;
  if (client_) client_->Close();
  Fail(error, std::move(detail));
}

void QuicConnection::MarkDone() {
  Release();
  client_.reset();
  record_.closed = MonotonicNow();
  done_ = true;
  env_.finished.push_back(this);
}

void QuicConnection::Release() {
  if (timer_ != 0) {
    env_.loop->CancelTimer(timer_);
    timer_ = 0;
  }
  if (registered_) {
    env_.loop->Remove(client_->fd());
    registered_ = false;
  }
}

}  // namespace pqc
