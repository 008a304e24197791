// The QUIC round-trip model against answers computed by hand from RFC 9000 and 9002 with
// OpenSSL 3.5's packet layout (QuicWire's defaults: 8-byte client DCID, empty client SCID,
// 8-byte server SCID, 4-byte packet numbers), and its properties over many flight sizes.
// The layout arithmetic used below, at D = 1,200:
//   client Initial: header 1+4+1+8+1+0+1(token length)+2(length)+4(packet number) = 22, tag 16;
//   server Initial: header 1+4+1+0+1+8+1+2+4 = 22, tag 16, ACK frame 5 (first packet only);
//   server Handshake: header 1+4+1+0+1+8+2+4 = 21, tag 16;
//   CRYPTO frame: type 1 + offset (1 byte under 64, 2 under 16,384, then 4) + length (1 or 2).
// So a full Handshake datagram carries 1,200 − 37 − 5 = 1,158 bytes of handshake data (1,156
// past offset 16,384), and the first server datagram, after a 90-byte ServerHello's Initial
// packet of 137 bytes, 1,200 − 137 − 37 − 4 = 1,022.
#include "core/quic_flight.h"

#include <gtest/gtest.h>

#include <numeric>

#include "core/slow_start.h"

namespace pqc {
namespace {

// Handshake messages as OpenSSL 3.5.7's QUIC server sent them (message callback, in memory):
// ServerHello 90 bytes with X25519, 1,178 with X25519MLKEM768 (its 1,120-byte key share: an
// ML-KEM-768 ciphertext of 1,088 bytes and an X25519 key); EncryptedExtensions 86 (ALPN h3 and
// its transport parameters); Finished 52 (TLS_AES_256_GCM_SHA384's 48-byte MAC).
constexpr uint32_t kX25519Hello = 90;
constexpr uint32_t kHybridHello = 1178;
constexpr uint32_t kEncryptedExtensions = 86;
constexpr uint32_t kFinished = 52;
// ClientHellos of OpenSSL 3.5.7's QUIC client (ALPN h3, SNI localhost): 260 bytes offering
// X25519, 1,436 offering X25519MLKEM768 alone, 1,482 with both key shares (its default).
constexpr uint32_t kX25519ClientHello = 260;
constexpr uint32_t kHybridClientHello = 1436;

QuicServerFlight Flight(uint32_t server_hello, uint32_t certificate, uint32_t verify) {
  return {.server_hello = server_hello,
          .encrypted_extensions = kEncryptedExtensions,
          .certificate = certificate,
          .certificate_verify = verify,
          .finished = kFinished};
}

uint64_t Sum(const std::vector<uint64_t>& v) {
  return std::accumulate(v.begin(), v.end(), 0ull);
}

TEST(QuicFlight, VarintAndInitialWindow) {
  EXPECT_EQ(QuicVarintBytes(63), 1u);
  EXPECT_EQ(QuicVarintBytes(64), 2u);
  EXPECT_EQ(QuicVarintBytes(16383), 2u);
  EXPECT_EQ(QuicVarintBytes(16384), 4u);
  EXPECT_EQ(QuicVarintBytes(1ull << 30), 8u);
  // RFC 9002 §7.2: min(10 D, max(14,720, 2 D)).
  EXPECT_EQ(QuicInitialWindow(1200), 12000u);
  EXPECT_EQ(QuicInitialWindow(1472), 14720u);
  EXPECT_EQ(QuicInitialWindow(9000), 18000u);
  EXPECT_EQ(QuicInitialWindow(1000), 12000u);  // below the minimum: counts as 1,200
}

TEST(QuicFlight, X25519ClientHelloFitsOneInitialDatagram) {
  EXPECT_EQ(ClientInitialDatagrams(kX25519ClientHello), 1u);
  // 1,200 − 22 − 16 − 4 (CRYPTO frame: type, offset 0, 2-byte length) = 1,158 bytes fit one.
  EXPECT_EQ(ClientInitialDatagrams(1158), 1u);
  EXPECT_EQ(ClientInitialDatagrams(1159), 2u);
  // An 8-byte client SCID (most stacks other than OpenSSL) leaves 8 bytes less.
  EXPECT_EQ(ClientInitialDatagrams(1150, {.client_scid_bytes = 8}), 1u);
  EXPECT_EQ(ClientInitialDatagrams(1151, {.client_scid_bytes = 8}), 2u);
  const QuicFlightRounds r = ModelQuicFlight(kX25519ClientHello, Flight(kX25519Hello, 466, 79));
  EXPECT_EQ(r.client_initial_datagrams, 1u);
  EXPECT_EQ(r.received_before_validation, 1200u);
  EXPECT_EQ(r.amplification_budget, 3600u);
}

TEST(QuicFlight, HybridClientHelloNeedsTwoInitialDatagrams) {
  // The 1,406-byte ClientHello (OpenSSL over TCP, two key shares) and OpenSSL's QUIC
  // ones: 1,158 bytes in the first datagram, the rest in a second.
  for (uint32_t hello : {1406u, kHybridClientHello, 1482u}) {
    const QuicFlightRounds r = ModelQuicFlight(hello, Flight(kHybridHello, 466, 79));
    EXPECT_EQ(r.client_initial_datagrams, 2u) << hello;
    EXPECT_EQ(r.received_before_validation, 2400u) << hello;
    EXPECT_EQ(r.amplification_budget, 7200u) << hello;
  }
  // Three datagrams: 1,158 + 1,157 + 1,157 (2-byte offsets from the second on).
  EXPECT_EQ(ClientInitialDatagrams(3472), 3u);
  EXPECT_EQ(ClientInitialDatagrams(3473), 4u);
}

TEST(QuicFlight, EcdsaChainTakesOneRoundTripWithEitherGroup) {
  // ecdsa-p256 (certs: Certificate 466, CertificateVerify 79). X25519: a 137-byte Initial packet
  // and a 37 + 4 + 683-byte Handshake packet, 861 bytes, padded to 1,200 (it carries an
  // Initial packet).
  QuicFlightRounds r = ModelQuicFlight(kX25519ClientHello, Flight(kX25519Hello, 466, 79));
  EXPECT_EQ(r.flight_datagrams, 1u);
  EXPECT_EQ(r.flight_wire_bytes, 1200u);
  EXPECT_EQ(r.round_one_bytes(), 1200u);
  EXPECT_EQ(r.round_one_limit, QuicRoundOneLimit::kNone);
  EXPECT_EQ(r.handshake_round_trips, 1u);
  EXPECT_EQ(r.first_byte_round_trips, 2u);
  // X25519MLKEM768: the ServerHello alone overflows the first datagram (1,200 − 43 − 4 = 1,153
  // of its 1,178 bytes); the second holds its last 25 (a 67-byte Initial packet) and the 683
  // bytes of Handshake data, padded to 1,200: 2,400 bytes, within the 7,200-byte budget.
  r = ModelQuicFlight(kHybridClientHello, Flight(kHybridHello, 466, 79));
  EXPECT_EQ(r.flight_datagrams, 2u);
  EXPECT_EQ(r.flight_wire_bytes, 2400u);
  EXPECT_EQ(r.round_one_limit, QuicRoundOneLimit::kNone);
  EXPECT_EQ(r.handshake_round_trips, 1u);
  EXPECT_EQ(r.first_byte_round_trips, 2u);
}

TEST(QuicFlight, MlDsa65LeafIsHeldBackByTheAmplificationLimit) {
  // Certificate 5,591 + CertificateVerify 3,317 (issue 29); Handshake data 86 + 5,591 + 3,317 +
  // 52 = 9,046 bytes.
  // X25519: 1,022 bytes in the first datagram, then 1,158 per datagram: 6 full (6,948) and a
  // last one of 1,076 bytes of data, 37 + 3 + 2 + 1,076 = 1,118 bytes. 8 datagrams, 7 × 1,200 +
  // 1,118 = 9,518 bytes. The budget (3,600) lets 3 go; the window (12,000) would have let all.
  QuicFlightRounds r = ModelQuicFlight(kX25519ClientHello, Flight(kX25519Hello, 5591, 3317));
  EXPECT_EQ(r.flight_datagrams, 8u);
  EXPECT_EQ(r.flight_wire_bytes, 9518u);
  EXPECT_EQ(r.bytes_per_round, (std::vector<uint64_t>{3600, 5918}));
  EXPECT_EQ(r.round_one_limit, QuicRoundOneLimit::kAmplification);
  EXPECT_TRUE(r.amplification_limited());
  EXPECT_EQ(r.handshake_round_trips, 2u);
  EXPECT_EQ(r.first_byte_round_trips, 3u);
  // X25519MLKEM768: the first datagram all ServerHello; the second its last 25 bytes (67) and
  // 1,092 bytes of Handshake data; then 6 × 1,158 and 1,006 bytes (a 1,048-byte datagram):
  // 9 datagrams, 8 × 1,200 + 1,048 = 10,648 bytes. The budget (7,200) lets 6 go.
  r = ModelQuicFlight(kHybridClientHello, Flight(kHybridHello, 5591, 3317));
  EXPECT_EQ(r.flight_datagrams, 9u);
  EXPECT_EQ(r.flight_wire_bytes, 10648u);
  EXPECT_EQ(r.bytes_per_round, (std::vector<uint64_t>{7200, 3448}));
  EXPECT_EQ(r.round_one_limit, QuicRoundOneLimit::kAmplification);
  EXPECT_EQ(r.handshake_round_trips, 2u);
  EXPECT_EQ(r.first_byte_round_trips, 3u);
  // Over TCP the same 8,908 bytes are 7 segments: one round trip after connect, so both reach
  // the first response byte in 3 round trips — QUIC's saved connect spent on validation.
  EXPECT_EQ(SlowStartRoundTrips(SegmentsFor(5591 + 3317)), 1u);
}

TEST(QuicFlight, HybridClientHelloCanSaveARoundTrip) {
  // The hybrid's second Initial datagram buys 3,600 bytes of budget; its ServerHello costs
  // 1,088 more. A flight in between goes at once with the hybrid only. Certificate 3,000 +
  // CertificateVerify 1,000: 4,138 bytes of Handshake data.
  // X25519: 1,022 + 1,158 + 1,158 + 800 (a 37 + 3 + 2 + 800 = 842-byte datagram): 4,442 bytes,
  // past 3,600: two round trips.
  QuicFlightRounds r = ModelQuicFlight(kX25519ClientHello, Flight(kX25519Hello, 3000, 1000));
  EXPECT_EQ(r.bytes_per_round, (std::vector<uint64_t>{3600, 842}));
  EXPECT_EQ(r.handshake_round_trips, 2u);
  // X25519MLKEM768: the ServerHello's 1,200, then 1,092 + 1,158 + 1,158 + 730 (772): 5,572
  // bytes, within 7,200: one.
  r = ModelQuicFlight(kHybridClientHello, Flight(kHybridHello, 3000, 1000));
  EXPECT_EQ(r.bytes_per_round, (std::vector<uint64_t>{5572}));
  EXPECT_EQ(r.handshake_round_trips, 1u);
}

TEST(QuicFlight, FlightPastTheWindowGrowsInSlowStart) {
  // Certificate 40,000 + CertificateVerify 4,635: 44,773 bytes of Handshake data. X25519: 1,022
  // in the first datagram; 14 datagrams of 1,158 while the offset stays under 16,384 (to
  // 17,234); then 4-byte offsets, 1,156 per datagram: 23 full and 951 bytes (a 37 + 5 + 2 + 951
  // = 995-byte datagram). 39 datagrams, 38 × 1,200 + 995 = 46,595 bytes.
  // Round 1: the budget, 3 datagrams; round 2: the window, 10 (12,000: the first round did not
  // fill the window, so its ACKs do not grow it, RFC 9002 §7.8); round 3: 24,000, the window
  // grown by the 12,000 acknowledged; round 4: the last 6 datagrams.
  QuicFlightRounds r = ModelQuicFlight(kX25519ClientHello, Flight(kX25519Hello, 40000, 4635));
  EXPECT_EQ(r.flight_datagrams, 39u);
  EXPECT_EQ(r.flight_wire_bytes, 46595u);
  EXPECT_EQ(r.bytes_per_round, (std::vector<uint64_t>{3600, 12000, 24000, 6995}));
  EXPECT_EQ(r.round_one_limit, QuicRoundOneLimit::kAmplification);
  EXPECT_EQ(r.handshake_round_trips, 4u);
  EXPECT_EQ(r.first_byte_round_trips, 5u);
  // TCP: 44,635 bytes are 31 segments, 3 round trips (10, 30, 70), 5 to the first byte with
  // connect: the same.
  EXPECT_EQ(SlowStartRoundTrips(SegmentsFor(40000 + 4635)), 3u);
  // X25519MLKEM768: 2 datagrams to the end of the ServerHello (1,092 Handshake bytes), 14 of
  // 1,158 (to 17,304), 23 of 1,156 and 881 bytes (925): 40 datagrams, 39 × 1,200 + 925.
  r = ModelQuicFlight(kHybridClientHello, Flight(kHybridHello, 40000, 4635));
  EXPECT_EQ(r.flight_datagrams, 40u);
  EXPECT_EQ(r.flight_wire_bytes, 47725u);
  EXPECT_EQ(r.bytes_per_round, (std::vector<uint64_t>{7200, 12000, 24000, 4525}));
  EXPECT_EQ(r.handshake_round_trips, 4u);
}

TEST(QuicFlight, ClientOfFourInitialsLeavesTheWindowAsTheLimit) {
  // A 4,000-byte ClientHello: 4 Initial datagrams, a 14,400-byte budget over the 12,000-byte
  // window. The first round fills the window, so its ACKs double it: 12,000 then 24,000.
  const QuicFlightRounds r = ModelQuicFlight(4000, Flight(kHybridHello, 40000, 4635));
  EXPECT_EQ(r.client_initial_datagrams, 4u);
  EXPECT_EQ(r.amplification_budget, 14400u);
  EXPECT_EQ(r.round_one_limit, QuicRoundOneLimit::kWindow);
  EXPECT_FALSE(r.amplification_limited());
  EXPECT_EQ(r.bytes_per_round, (std::vector<uint64_t>{12000, 24000, 11725}));
  EXPECT_EQ(r.handshake_round_trips, 3u);
}

TEST(QuicFlight, ServerHelloBeyondTheBudgetWaitsForMoreClientBytes) {
  // A ServerHello of 12,000 bytes (no such group yet): 1,153 bytes in the first datagram, 1,157
  // in each next; its end is in the 11th (434 bytes, then 682 of the 683 Handshake bytes), and
  // a 12th carries the last byte (37 + 1 + 2 + 1 + 1 = 42). The 3,600-byte budget ends inside
  // it; without the whole ServerHello the client has no Handshake keys, and its reply is an
  // Initial ACK, padded to 1,200, which buys 3,600 bytes more: three datagrams a round until
  // the fourth round, which brings the rest.
  const QuicFlightRounds r = ModelQuicFlight(kX25519ClientHello, Flight(12000, 466, 79));
  EXPECT_EQ(r.flight_datagrams, 12u);
  EXPECT_EQ(r.bytes_per_round, (std::vector<uint64_t>{3600, 3600, 3600, 2442}));
  EXPECT_EQ(r.received_before_validation, 4800u);
  EXPECT_EQ(r.amplification_budget, 14400u);
  EXPECT_EQ(r.handshake_round_trips, 4u);
}

TEST(QuicFlight, DatagramsAreWhole) {
  for (uint32_t cert = 0; cert <= 60000; cert += 997) {
    for (uint32_t hello : {kX25519Hello, kHybridHello}) {
      const auto datagrams = ServerFlightDatagrams(Flight(hello, cert, 3317));
      const QuicFlightRounds r = ModelQuicFlight(kX25519ClientHello, Flight(hello, cert, 3317));
      uint64_t total = 0;
      for (size_t i = 0; i < datagrams.size(); ++i) {
        EXPECT_LE(datagrams[i].bytes, 1200u);
        if (datagrams[i].carries_initial || i + 1 < datagrams.size()) {
          EXPECT_EQ(datagrams[i].bytes, 1200u) << cert;  // padded, or full
        }
        total += datagrams[i].bytes;
      }
      EXPECT_EQ(total, r.flight_wire_bytes);
      EXPECT_EQ(Sum(r.bytes_per_round), r.flight_wire_bytes);
      EXPECT_LE(r.round_one_bytes(), r.amplification_budget);
      // The data and the per-packet cost (at most 43 bytes per datagram) are all there is.
      const uint64_t data = uint64_t{hello} + kEncryptedExtensions + cert + 3317 + kFinished;
      EXPECT_GE(r.flight_wire_bytes, data);
      EXPECT_LE(r.flight_wire_bytes, data + 50 * datagrams.size() + 1200);
    }
  }
}

TEST(QuicFlight, RoundTripsGrowWithTheFlightAndNeverBeatTcpsHandshake) {
  // Monotonic: a larger certificate never needs fewer round trips. And at D = 1,200 QUIC's
  // handshake needs at least as many round trips as TCP's after connect (slow_start.h's model):
  // in round k QUIC sends at most 12,000 · 2^(k−1) (less while the 3× limit holds) against
  // TCP's 14,480 · 2^(k−1) (10, 20, 40 segments of 1,448), and its flight is the larger
  // (ServerHello, EncryptedExtensions, Finished and per-packet overhead on top of the
  // Certificate and CertificateVerify that the TCP figure counts). At D = 1,472 the windows
  // are 14,720 against 14,480 and this would no longer follow.
  for (uint32_t client_hello : {kX25519ClientHello, kHybridClientHello}) {
    const uint32_t server_hello = client_hello == kX25519ClientHello ? kX25519Hello : kHybridHello;
    uint32_t previous = 0;
    for (uint32_t cert = 200; cert <= 200000; cert += 311) {
      const QuicFlightRounds r = ModelQuicFlight(client_hello, Flight(server_hello, cert, 3317));
      EXPECT_GE(r.handshake_round_trips, previous) << cert;
      previous = r.handshake_round_trips;
      const uint32_t tcp = SlowStartRoundTrips(SegmentsFor(uint64_t{cert} + 3317));
      EXPECT_GE(r.handshake_round_trips, tcp) << cert;
      // TCP's first byte comes after connect + handshake + 1. QUIC's capacity after k + 2
      // rounds, 3,600 + 12,000 · (2^(k+1) − 1), exceeds TCP's after k, 14,480 · (2^k − 1), by
      // far more than QUIC's overhead: so QUIC's first byte is at most one round trip later,
      // and (by the line above) at most one earlier.
      EXPECT_LE(r.first_byte_round_trips, tcp + 2 + 1) << cert;
      EXPECT_GE(r.first_byte_round_trips + 1, tcp + 2) << cert;
    }
    EXPECT_GE(previous, 5u);
  }
}

TEST(QuicFlight, LargerDatagramsAndConnectionIds) {
  // D = 1,452 (1,500-byte MTU over IPv6): the window is 14,520; one Initial datagram of 1,452
  // buys 4,356 bytes. With 8-byte IDs both ways the server's packets carry 8 bytes more.
  const QuicWire wire{.max_datagram_bytes = 1452, .client_scid_bytes = 8};
  const QuicFlightRounds r =
      ModelQuicFlight(kX25519ClientHello, Flight(kX25519Hello, 5591, 3317), wire);
  EXPECT_EQ(r.initial_window, 14520u);
  EXPECT_EQ(r.client_initial_datagrams, 1u);
  EXPECT_EQ(r.amplification_budget, 3u * 1452u);
  EXPECT_EQ(r.round_one_bytes(), 3u * 1452u);
  EXPECT_EQ(r.round_one_limit, QuicRoundOneLimit::kAmplification);
  EXPECT_EQ(r.handshake_round_trips, 2u);
}

}  // namespace
}  // namespace pqc
