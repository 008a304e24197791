#include "core/quic_flight.h"

#include <algorithm>

namespace pqc {
namespace {

// kMaxRounds / kMaxDatagrams: the loops' bounds, far beyond any handshake (a 64-round flight
// would be exabytes; 1 << 20 datagrams over a gigabyte).
constexpr uint32_t kMaxRounds = 64;
constexpr uint32_t kMaxDatagrams = 1u << 20;
// A long header's fixed part (RFC 9000 §17.2): first byte, version, and the two connection ID
// length bytes.
constexpr uint32_t kLongHeaderFixed = 1 + 4 + 1 + 1;

uint32_t Datagram(const QuicWire& wire) {
  return std::max(wire.max_datagram_bytes, kQuicMinDatagramBytes);
}

// The Length field is written before the payload is known; as OpenSSL does, it is sized for the
// largest packet a datagram can hold (2 bytes at D < 16,384), so that padding never outgrows it.
uint32_t LengthField(const QuicWire& wire) {
  return QuicVarintBytes(Datagram(wire));
}

// Header + AEAD tag of a long-header packet: Initial packets add the token length (0: no
// token, one byte; §17.2.2), Handshake packets have none (§17.2.4).
uint32_t PacketOverhead(uint32_t dcid, uint32_t scid, bool initial, const QuicWire& wire) {
  return kLongHeaderFixed + dcid + scid + (initial ? 1 : 0) + LengthField(wire) +
         wire.packet_number_bytes + kQuicAeadTagBytes;
}

// CryptoChunk: how much of a CRYPTO frame's data fits in `room` bytes at `offset` with
// `left` bytes still to send, and the frame's total size (type, offset, length: §19.6).
struct CryptoChunk {
  uint64_t data = 0;
  uint64_t frame = 0;
};
CryptoChunk FitCrypto(uint64_t room, uint64_t offset, uint64_t left) {
  const uint64_t fixed = 1 + QuicVarintBytes(offset);
  if (room <= fixed + 1 || left == 0) return {};
  const uint64_t avail = room - fixed;  // for the length field and the data
  // The largest length whose field still fits beside it: a 2-byte field from 64 bytes on.
  uint64_t cap = avail - 1;
  if (cap > 63) cap = std::max<uint64_t>(63, avail - 2);
  if (cap > 16383) cap = std::max<uint64_t>(16383, avail - 4);
  const uint64_t data = std::min(cap, left);
  return {data, fixed + QuicVarintBytes(data) + data};
}

}  // namespace

std::string_view QuicRoundOneLimitName(QuicRoundOneLimit limit) {
  switch (limit) {
    case QuicRoundOneLimit::kNone:
      return "none";
    case QuicRoundOneLimit::kAmplification:
      return "amplification";
    case QuicRoundOneLimit::kWindow:
      return "window";
  }
  return "none";
}

uint32_t QuicVarintBytes(uint64_t value) {
  if (value < (1u << 6)) return 1;
  if (value < (1u << 14)) return 2;
  if (value < (1u << 30)) return 4;
  return 8;
}

uint32_t QuicInitialWindow(uint32_t max_datagram_bytes) {
  const uint32_t d = std::max(max_datagram_bytes, kQuicMinDatagramBytes);
  return std::min(10 * d, std::max(14720u, 2 * d));
}

uint32_t ClientInitialDatagrams(uint32_t client_hello_bytes, const QuicWire& wire) {
  const uint32_t room =
      Datagram(wire) - PacketOverhead(wire.client_dcid_bytes, wire.client_scid_bytes, true, wire);
  uint64_t offset = 0;
  uint32_t datagrams = 0;
  // Bounded: each pass sends at least 60 bytes of the ClientHello (room ≥ 1,200 − 80).
  while ((offset < client_hello_bytes || datagrams == 0) && datagrams < kMaxDatagrams) {
    offset += FitCrypto(room, offset, client_hello_bytes - offset).data;
    ++datagrams;
  }
  return datagrams;
}

std::vector<QuicDatagram> ServerFlightDatagrams(const QuicServerFlight& flight,
                                                const QuicWire& wire) {
  const uint32_t d = Datagram(wire);
  // The server's packets go to the client's Source Connection ID (§7.2).
  const uint32_t initial_overhead =
      PacketOverhead(wire.client_scid_bytes, wire.server_scid_bytes, true, wire);
  const uint32_t handshake_overhead =
      PacketOverhead(wire.client_scid_bytes, wire.server_scid_bytes, false, wire);
  const uint64_t space_bytes[2] = {flight.server_hello, flight.handshake_space_bytes()};
  uint64_t offset[2] = {0, 0};
  int space = space_bytes[0] > 0 ? 0 : 1;
  bool ack_sent = false;
  std::vector<QuicDatagram> out;
  while (space < 2 && out.size() < kMaxDatagrams) {
    QuicDatagram dg;
    uint64_t room = d;
    // Packets coalesce while one more fits: the Initial's end, then Handshake packets.
    while (space < 2) {
      const bool initial = space == 0;
      uint64_t overhead = initial ? initial_overhead : handshake_overhead;
      if (initial && !ack_sent) overhead += kQuicServerInitialAckBytes;
      if (room <= overhead) break;
      const CryptoChunk c =
          FitCrypto(room - overhead, offset[space], space_bytes[space] - offset[space]);
      if (c.data == 0) break;
      room -= overhead + c.frame;
      offset[space] += c.data;
      if (initial) {
        dg.carries_initial = true;
        ack_sent = true;
      }
      if (offset[space] < space_bytes[space]) break;  // the datagram is full
      ++space;
    }
    dg.bytes = static_cast<uint32_t>(d - room);
    // An empty datagram would mean D cannot hold one packet; QuicWire's sizes rule that out.
    if (dg.bytes == 0) break;
    if (dg.carries_initial) dg.bytes = std::max(dg.bytes, kQuicMinDatagramBytes);
    out.push_back(dg);
  }
  return out;
}

QuicFlightRounds ModelQuicFlight(uint32_t client_hello_bytes, const QuicServerFlight& flight,
                                 const QuicWire& wire) {
  QuicFlightRounds r;
  const uint32_t d = Datagram(wire);
  r.client_initial_datagrams = ClientInitialDatagrams(client_hello_bytes, wire);
  // Every datagram carrying a client's Initial packet is padded to at least 1,200 bytes
  // (§14.1); clients pad to their datagram size, so each is D.
  r.received_before_validation = uint64_t{r.client_initial_datagrams} * d;
  r.initial_window = QuicInitialWindow(d);

  const std::vector<QuicDatagram> datagrams = ServerFlightDatagrams(flight, wire);
  r.flight_datagrams = static_cast<uint32_t>(datagrams.size());
  size_t last_initial = 0;  // the datagram that completes the ServerHello
  for (size_t i = 0; i < datagrams.size(); ++i) {
    r.flight_wire_bytes += datagrams[i].bytes;
    if (datagrams[i].carries_initial) last_initial = i;
  }

  uint64_t received = r.received_before_validation;
  uint64_t sent_unvalidated = 0;
  uint64_t window = r.initial_window;
  bool validated = false;
  size_t next = 0;
  while (next < datagrams.size() && r.bytes_per_round.size() < kMaxRounds) {
    const uint64_t allowed = kQuicAmplificationFactor * received;
    const uint64_t budget = allowed > sent_unvalidated ? allowed - sent_unvalidated : 0;
    const uint64_t limit = validated ? window : std::min(window, budget);
    uint64_t sent = 0;
    while (next < datagrams.size() && sent + datagrams[next].bytes <= limit) {
      sent += datagrams[next++].bytes;
    }
    // The window (≥ 2 D) always takes a datagram, and so does a first round's budget (≥ 3 D);
    // only a later unvalidated round with D far above 1,200 could have less left than one.
    // There a real server would send a smaller datagram; the model sends the next one whole
    // (and keeps the loop moving).
    if (sent == 0) sent += datagrams[next++].bytes;
    const bool held = next < datagrams.size();
    const bool window_full = held && sent + datagrams[next].bytes > window;
    if (r.bytes_per_round.empty() && held) {
      r.round_one_limit =
          window_full ? QuicRoundOneLimit::kWindow : QuicRoundOneLimit::kAmplification;
    }
    r.bytes_per_round.push_back(sent);
    if (!validated) sent_unvalidated += sent;
    if (!held) break;
    // The client's reply: with the whole ServerHello it has handshake keys and answers in a
    // Handshake packet, which validates; otherwise an Initial ACK, padded, buys 3 × D.
    if (next > last_initial) {
      validated = true;
    } else {
      received += d;
    }
    if (window_full) window += sent;
  }
  r.received_before_validation = received;
  r.amplification_budget = kQuicAmplificationFactor * r.received_before_validation;
  r.handshake_round_trips = std::max<uint32_t>(1, static_cast<uint32_t>(r.bytes_per_round.size()));
  r.first_byte_round_trips = r.handshake_round_trips + 1;
  return r;
}

}  // namespace pqc
