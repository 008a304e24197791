// record — what the load generator keeps of every connection and request
// (docs/design.md, "What a connection record keeps"). No sampling: one ConnectionRecord per
// connection attempted.
// Timestamps are CLOCK_MONOTONIC nanoseconds (0 = did not happen); phases are differences.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/protocol.h"

namespace pqc {

// kEarly: resumption with the connection's first request sent as TLS 1.3 early data (0-RTT).
enum class ConnMode : uint8_t { kFresh, kReuse, kResume, kEarly };
std::string_view ConnModeName(ConnMode mode);

// ErrorClass: why a connection failed. Data, not exceptions: a failed connection is a
// measurement too (docs/design.md, "Error classes").
enum class ErrorClass : uint8_t {
  kNone,
  kRefused,   // connect: ECONNREFUSED
  kConnect,   // other connect failure (unreachable, ...)
  kReset,     // ECONNRESET / EPIPE at any point
  kTimeout,   // no progress within --timeout
  kTlsAlert,  // peer sent an alert (detail: its name)
  kTls,       // local TLS failure (detail: OpenSSL's reason)
  kHttp,      // malformed or unexpected HTTP response (detail: parser class / status)
  kClosed,    // peer closed cleanly before the response was complete
};
std::string_view ErrorClassName(ErrorClass error);

// EarlyData: what became of a connection's early data (an `early` connection offers it when
// its session allows early data).
enum class EarlyData : uint8_t { kNone, kAccepted, kRejected };
std::string_view EarlyDataName(EarlyData early);

struct RequestRecord {
  Nanos sent = 0;        // request fully handed to TLS
  Nanos first_byte = 0;  // first response byte decrypted
  Nanos last_byte = 0;   // response complete
  uint32_t status = 0;   // HTTP status code
  uint64_t body_bytes = 0;
};

struct ConnectionRecord {
  uint64_t id = 0;
  uint16_t thread = 0;
  // site: the client site the connection came from (an index into the sites of the arm's
  // network; 0 on a network of one site, loopback included).
  uint8_t site = 0;
  ConnMode mode = ConnMode::kFresh;
  bool measured = false;         // false during warm-up (discarded from statistics)
  bool offered_session = false;  // resume mode: a saved session was offered

  Nanos intended_start = 0;   // from the open-loop schedule
  Nanos actual_start = 0;     // socket() called
  Nanos tcp_established = 0;  // connect completed
  Nanos tls_done = 0;         // handshake completed
  Nanos closed = 0;           // connection finished (success or failure)

  uint32_t first_request = 0;  // index into LoadResult::requests
  uint32_t request_count = 0;  // requests completed on this connection

  // TLS bytes on the socket until the handshake completed.
  uint64_t handshake_bytes_written = 0;
  uint64_t handshake_bytes_read = 0;
  // TCP segments with data received until the handshake completed (TCP_INFO
  // tcpi_data_segs_in): the server's flight as packets, which is what the initial congestion
  // window (10 segments) counts; 0 where the kernel does not say.
  uint32_t handshake_segments_read = 0;
  // Handshake messages (from the message callback): sizes of the server's messages.
  uint32_t client_hello_bytes = 0;
  uint32_t server_hello_bytes = 0;
  uint32_t certificate_bytes = 0;
  uint32_t certificate_verify_bytes = 0;

  std::string group;              // negotiated group, canonical name ("" if no handshake)
  uint16_t signature_scheme = 0;  // server's CertificateVerify scheme; 0 when resumed
  const char* cipher = "";        // static string owned by OpenSSL
  bool resumed = false;
  bool hrr = false;
  EarlyData early_data = EarlyData::kNone;  // kNone: not offered
  uint32_t early_bytes = 0;                 // application bytes sent as early data

  // Over QUIC (protocol h3): handshake_bytes_* count whole UDP datagrams, handshake_segments_read
  // stays 0, and these count the datagrams until the handshake completed (quic/wire_counts.h).
  Protocol protocol = Protocol::kH1;
  uint32_t handshake_datagrams_sent = 0;
  uint32_t handshake_datagrams_received = 0;
  // initial_datagrams: the client's first flight, sent before anything came back — the
  // ClientHello's Initials (two for an X25519MLKEM768 ClientHello).
  uint32_t initial_datagrams = 0;
  // amplification_limited: seen on the wire — the server sent more during the handshake than
  // three times the client's first flight, so part of its flight waited for the client's next
  // datagrams (RFC 9000 §8.1: a round trip more). False over TCP.
  bool amplification_limited = false;
  // retried: the server answered the first Initial with a Retry (RFC 9000 §8.1.2: address
  // validation, a round trip more before the handshake starts). False over TCP.
  bool retried = false;
  // h2_frames_before_response: over HTTP/2, the frames the server sent before its first
  // response began — its SETTINGS, WINDOW_UPDATE and acknowledgements, which ride in or right
  // after its TLS flight and are counted in its bytes. 0 over h1 and h3.
  uint32_t h2_frames_before_response = 0;

  ErrorClass error = ErrorClass::kNone;
  std::string error_detail;

  bool ok() const { return error == ErrorClass::kNone; }
};

}  // namespace pqc
