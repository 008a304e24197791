// datagram_scan — which QUIC packets one UDP datagram carries, read from the parts of their
// headers that header protection leaves in the clear (RFC 9000 §17, RFC 9001 §5.4): the
// long-header form and type bits, the connection IDs, an Initial's token and every long
// header's Length, which is how coalesced packets (§12.2) are walked. Nothing is decrypted.
// Input is what the network delivered, so every length is checked against the datagram.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace pqc::quic {

struct DatagramPackets {
  uint8_t initial = 0;        // Initial packets
  uint8_t zero_rtt = 0;       // 0-RTT packets
  uint8_t handshake = 0;      // Handshake packets
  uint8_t retry = 0;          // Retry packets
  bool short_header = false;  // ends with a 1-RTT packet (it runs to the datagram's end)
  bool malformed = false;     // a header ran past the datagram, or a version-0 packet
};

// ScanDatagram: the packets of `d`, in at most 32 coalesced packets (more is malformed).
DatagramPackets ScanDatagram(std::span<const unsigned char> d);

// ReadVarint: a QUIC variable-length integer (§16) at d[*pos], advancing *pos; false when it
// runs past the end.
bool ReadVarint(std::span<const unsigned char> d, size_t* pos, uint64_t* value);

}  // namespace pqc::quic
