#include "quic/datagram_scan.h"

#include <optional>

#include "net/quic_header.h"

namespace pqc::quic {
namespace {

constexpr int kMaxCoalesced = 32;

bool Skip(std::span<const unsigned char> d, size_t* pos, uint64_t n) {
  if (n > d.size() - *pos) return false;
  *pos += static_cast<size_t>(n);
  return true;
}

}  // namespace

bool ReadVarint(std::span<const unsigned char> d, size_t* pos, uint64_t* value) {
  if (*pos >= d.size()) return false;
  const size_t n = size_t{1} << (d[*pos] >> 6);
  if (n > d.size() - *pos) return false;
  uint64_t v = d[*pos] & 0x3f;
  for (size_t i = 1; i < n; ++i) v = (v << 8) | d[*pos + i];
  *pos += n;
  *value = v;
  return true;
}

DatagramPackets ScanDatagram(std::span<const unsigned char> d) {
  DatagramPackets out;
  size_t pos = 0;
  for (int n = 0; pos < d.size(); ++n) {
    if (n == kMaxCoalesced) {
      out.malformed = true;
      return out;
    }
    if (!IsQuicLongHeader(d, pos)) {  // a short header: the packet fills the rest (§12.2)
      out.short_header = true;
      return out;
    }
    // Version negotiation (version 0) has no Length: it cannot be coalesced; not ours to send.
    const std::optional<QuicLongHeader> h = ReadQuicLongHeader(d, pos);
    if (!h) {
      out.malformed = true;
      return out;
    }
    size_t p = h->end;
    if (h->type == QuicPacketType::kRetry) {  // no Length: it is the whole rest of the datagram
      ++out.retry;
      return out;
    }
    uint64_t token = 0, length = 0;
    if ((h->type == QuicPacketType::kInitial &&
         (!ReadVarint(d, &p, &token) || !Skip(d, &p, token))) ||
        !ReadVarint(d, &p, &length) || !Skip(d, &p, length)) {
      out.malformed = true;
      return out;
    }
    if (h->type == QuicPacketType::kInitial) ++out.initial;
    if (h->type == QuicPacketType::kZeroRtt) ++out.zero_rtt;
    if (h->type == QuicPacketType::kHandshake) ++out.handshake;
    pos = p;
  }
  return out;
}

}  // namespace pqc::quic
