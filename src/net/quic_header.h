// quic_header — the cleartext part of a QUIC long header (RFC 9000 §17.2): the form bit, the
// version, the packet type and both connection IDs, which header protection leaves readable
// (RFC 9001 §5.4). Shared by the client's datagram classifier (quic/datagram_scan.h) and the
// emulated link's flow counter (link/udp_flows.h), both of which read what the network carried:
// every length is checked against the bytes given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace pqc {

// Long-header packet types of QUIC version 1 (RFC 9000 §17.2).
enum class QuicPacketType : uint8_t { kInitial = 0, kZeroRtt = 1, kHandshake = 2, kRetry = 3 };

struct QuicLongHeader {
  QuicPacketType type = QuicPacketType::kInitial;
  uint32_t version = 0;
  std::span<const unsigned char> dcid, scid;
  size_t end = 0;  // offset of the first byte after the source connection ID
};

// IsQuicLongHeader: whether the packet at d[pos] has the long form (its first bit set).
inline bool IsQuicLongHeader(std::span<const unsigned char> d, size_t pos) {
  return pos < d.size() && (d[pos] & 0x80) != 0;
}

// ReadQuicLongHeader: the long header starting at d[pos]; none when it runs past the end, a
// connection ID is over 20 bytes (version 1's limit) or the version is 0 (version negotiation,
// whose layout differs).
std::optional<QuicLongHeader> ReadQuicLongHeader(std::span<const unsigned char> d, size_t pos);

}  // namespace pqc
