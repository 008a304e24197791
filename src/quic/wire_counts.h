// wire_counts — what one QUIC connection put on and took off the wire, counted from OpenSSL's
// message callback, which reports every UDP datagram the QUIC stack sends or receives
// (SSL3_RT_QUIC_DATAGRAM, whole datagrams as on the wire). Over TCP the client counts bytes
// on the socket; over QUIC the datagram is the unit the anti-amplification limit (RFC 9000
// §8.1) and the congestion window (RFC 9002 §7) are reckoned in.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>

#include "tls/inspector.h"

namespace pqc::quic {

struct WireCounts {
  uint32_t datagrams_sent = 0;
  uint32_t datagrams_received = 0;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  // Datagrams sent before any was received: for a client, the ClientHello's Initials (an
  // X25519MLKEM768 ClientHello needs two), with any retransmission of them. (Counting Initial
  // datagrams up to the first Handshake packet would take in the Initial ACK a client may
  // send, padded to 1,200 bytes, before it has processed the server's Handshake packets.)
  uint32_t first_flight_datagrams = 0;
  uint64_t first_flight_bytes = 0;
  // Bytes received before this side sent its first Handshake packet: for a client, what the
  // server sent on the strength of the Initials alone — at most three times their bytes while
  // it had not validated the client's address (RFC 9000 §8.1) — and datagrams received then.
  uint64_t bytes_received_before_handshake_packet = 0;
  uint64_t bytes_sent_before_handshake_packet = 0;
  uint32_t datagrams_received_before_handshake_packet = 0;
  bool sent_handshake_packet = false;
  bool received_retry = false;  // the server asked for address validation (one more round trip)
};

// AmplificationLimited: whether the server sent more than three times the client's first flight
// before the handshake completed (`at_handshake`: the counts then). A server that has not
// validated the client's address may not (RFC 9000 §8.1), so the rest of its flight waited for
// the client's next datagrams: the limit cost a round trip, seen on the wire rather than
// predicted from sizes (core/quic_flight.h predicts it).
bool AmplificationLimited(const WireCounts& at_handshake);

// CountDatagrams: an SSL message callback; `arg` is the WireCounts to add to.
void CountDatagrams(int write_p, int version, int content_type, const void* buf, size_t len,
                    SSL* ssl, void* arg);

// QuicWatch: what one QUIC connection's message callback records: its datagrams, and its
// TLS handshake as over TCP (tls/inspector.h). An SSL object has one message callback.
struct QuicWatch {
  WireCounts wire;
  HandshakeFacts facts;
};

// Watch: records `ssl`'s datagrams and handshake into `w` (which must outlive its use).
void Watch(SSL* ssl, QuicWatch* w);

}  // namespace pqc::quic
