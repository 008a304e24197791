// quic_connection — one client connection over QUIC: HTTP/3 (quic/h3_client.h) driven by the
// thread's EventLoop — its UDP socket watched for datagrams, QUIC's own loss and ACK timers as
// loop timers — and recorded like a TCP connection (docs/methodology.md, "Phases over QUIC"):
// no connect phase; the handshake from the first Initial sent (tcp_established holds that
// instant) to its completion; ttfb and response per request as over TCP; the datagrams each way
// until the handshake completed, the client's Initials, and whether the server's flight was
// held back by the anti-amplification limit.
#pragma once

#include <memory>
#include <string>

#include "client/connection.h"
#include "quic/h3_client.h"

namespace pqc {

class QuicConnection final : public Connection {
 public:
  QuicConnection(ConnectionEnv& env, ConnectionRecord record);
  ~QuicConnection() override;

  void Start() override;
  void Abort(ErrorClass error, std::string detail) override;
  bool done() const override { return done_; }

 private:
  // Step: lets the client move on what arrived or timed out, then records and re-arms.
  void Step();
  void Rearm();
  void RecordHandshake();
  // RecordRequests: the responses completed since the last step; false when one failed the
  // connection (a status other than 200).
  bool RecordRequests();
  void Finish();
  void Fail(ErrorClass error, std::string detail);
  void MarkDone();
  void Release();

  std::unique_ptr<quic::H3Client> client_;
  bool registered_ = false;
  uint32_t interest_ = 0;
  TimerId timer_ = 0;
  Nanos timer_at_ = 0;
  bool handshake_recorded_ = false;
  size_t responses_seen_ = 0;
  bool done_ = false;
};

}  // namespace pqc
