// quic_flight — how many round trips the server's first flight needs on a new QUIC
// connection, beside slow_start.h's answer for TCP. Over QUIC there is no connect, but until the
// server has validated the client's address it may send at most three times the bytes it
// received (RFC 9000 §8.1), and the client's Initial datagrams are padded to 1,200 bytes
// (§14.1): one Initial datagram (an X25519 ClientHello) buys 3,600 bytes, two (X25519MLKEM768's
// ClientHello does not fit one) buy 7,200. An ML-DSA certificate's flight is larger, so the
// server stops, waits for the client's reply (a Handshake packet validates the address), and the
// handshake takes an extra round trip that TCP, whose window starts at 14,600 bytes, does not
// pay. After validation only the congestion window limits: 12,000 bytes at a 1,200-byte datagram
// (RFC 9002 §7.2), growing in slow start by the bytes acknowledged.
//
// The packet layout follows the RFCs with the sizes OpenSSL 3.5 uses (QuicWire's defaults);
// fed with the messages OpenSSL's QUIC server sends, the model gives its datagrams to within a
// byte (quic_openssl_test.cc). The model assumes no loss, no Retry and a server that has its
// whole flight ready when the ClientHello arrives.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace pqc {

// kQuicMinDatagramBytes: the smallest maximum datagram size (RFC 9000 §14): every datagram
// carrying an ack-eliciting Initial packet is padded to at least this (§14.1).
inline constexpr uint32_t kQuicMinDatagramBytes = 1200;
// kQuicAmplificationFactor: bytes a server may send per byte received before it has validated
// the client's address (RFC 9000 §8.1).
inline constexpr uint32_t kQuicAmplificationFactor = 3;
// kQuicAeadTagBytes: the tag every QUIC packet carries (all of TLS 1.3's AEADs: RFC 9001 §5.3).
inline constexpr uint32_t kQuicAeadTagBytes = 16;
// kQuicServerInitialAckBytes: the ACK frame of the client's Initial packets in the server's first
// Initial packet: type, largest acknowledged, ACK delay, range count, first range, one byte each
// while packet numbers stay under 64 and the delay under 512 µs (RFC 9000 §19.3); a slower
// signature makes it a byte longer.
inline constexpr uint32_t kQuicServerInitialAckBytes = 5;

// QuicWire: the sizes that vary between implementations, defaults as OpenSSL 3.5 sends them
// (read from its packets and its source, ssl/quic/quic_port.c and quic_txp.c).
struct QuicWire {
  // The largest datagram either side sends (D); at least kQuicMinDatagramBytes (a smaller
  // value counts as that). 1,200 until path MTU discovery, which no handshake waits for.
  uint32_t max_datagram_bytes = kQuicMinDatagramBytes;
  // The client's first Destination Connection ID, at least 8 bytes (RFC 9000 §7.2).
  uint32_t client_dcid_bytes = 8;
  // The client's Source Connection ID, which the server's packets carry as their destination:
  // OpenSSL's client uses an empty one (a single-connection port), many others 8.
  uint32_t client_scid_bytes = 0;
  // The server's Source Connection ID (OpenSSL's listener: 8).
  uint32_t server_scid_bytes = 8;
  // Packet number length (RFC 9000 §17.1): OpenSSL always writes 4; 1 or 2 would do here.
  uint32_t packet_number_bytes = 4;
};

// QuicServerFlight: the server's handshake messages, each with its 4-byte handshake header.
// The ServerHello travels in Initial packets, the rest in Handshake packets (RFC 9001 §4.1.4).
struct QuicServerFlight {
  uint32_t server_hello = 0;
  uint32_t encrypted_extensions = 0;
  uint32_t certificate = 0;
  uint32_t certificate_verify = 0;
  uint32_t finished = 0;
  uint64_t handshake_space_bytes() const {
    return uint64_t{encrypted_extensions} + certificate + certificate_verify + finished;
  }
};

// QuicDatagram: one datagram of the server's flight, as ServerFlightDatagrams packs it.
struct QuicDatagram {
  uint32_t bytes = 0;
  bool carries_initial = false;  // holds (the end of) an Initial packet
};

// QuicRoundOneLimit: what held the server's first round back, if anything did.
enum class QuicRoundOneLimit {
  kNone,           // the whole flight went in the first round trip
  kAmplification,  // the 3× limit: the window would have let more go
  kWindow,         // the congestion window (the 3× limit allowed as much or more)
};

// QuicRoundOneLimitName: "none", "amplification", "window" (certs' table and JSON).
std::string_view QuicRoundOneLimitName(QuicRoundOneLimit limit);

struct QuicFlightRounds {
  uint32_t client_initial_datagrams = 0;
  uint64_t received_before_validation = 0;  // the client's datagrams, padded, in bytes
  uint64_t amplification_budget = 0;        // 3× that
  uint32_t initial_window = 0;              // bytes (RFC 9002 §7.2)
  uint64_t flight_wire_bytes = 0;           // the server's flight as datagrams (UDP payload)
  uint32_t flight_datagrams = 0;
  std::vector<uint64_t> bytes_per_round;  // the server's bytes in each round trip
  QuicRoundOneLimit round_one_limit = QuicRoundOneLimit::kNone;
  // The round trip in which the last byte of the server's flight reaches the client: the
  // handshake is complete for it then.
  uint32_t handshake_round_trips = 0;
  // The first byte of a response to an HTTP/3 request sent with the client's Finished.
  uint32_t first_byte_round_trips = 0;

  uint64_t round_one_bytes() const { return bytes_per_round.empty() ? 0 : bytes_per_round[0]; }
  bool amplification_limited() const {
    return round_one_limit == QuicRoundOneLimit::kAmplification;
  }
};

// QuicVarintBytes: the length of a QUIC variable-length integer (RFC 9000 §16): 1, 2, 4 or 8.
uint32_t QuicVarintBytes(uint64_t value);

// QuicInitialWindow: min(10 × D, max(14,720, 2 × D)) bytes (RFC 9002 §7.2).
uint32_t QuicInitialWindow(uint32_t max_datagram_bytes);

// ClientInitialDatagrams: the Initial datagrams a ClientHello of `client_hello_bytes` (the
// handshake message, header included) needs, one Initial packet with one CRYPTO frame each.
uint32_t ClientInitialDatagrams(uint32_t client_hello_bytes, const QuicWire& wire = {});

// ServerFlightDatagrams: the server's flight packed as a server does it: the ServerHello in
// Initial packets (the first with the ACK of the client's), the rest in Handshake packets
// coalesced behind it (RFC 9000 §12.2), every datagram filled to D; a datagram carrying an
// Initial packet padded to 1,200 bytes (§14.1).
std::vector<QuicDatagram> ServerFlightDatagrams(const QuicServerFlight& flight,
                                                const QuicWire& wire = {});

// ModelQuicFlight: the round trips of a fresh QUIC handshake, round by round: the server sends
// whole datagrams while the amplification budget (until validation) and the congestion window
// allow; the client's reply to a round that brought it the whole ServerHello carries a
// Handshake packet, which validates its address for the next round (RFC 9000 §8.1); a reply
// without handshake keys is an Initial datagram, padded to D, that adds 3 × D to the budget.
// Each round trip acknowledges the last; the window grows by the bytes acknowledged (slow
// start, RFC 9002 §7.3.1) only after a round that filled it (§7.8: an under-used window, as
// when the 3× limit held the first round back, does not grow).
QuicFlightRounds ModelQuicFlight(uint32_t client_hello_bytes, const QuicServerFlight& flight,
                                 const QuicWire& wire = {});

}  // namespace pqc
