#include "quic/datagram_scan.h"

namespace pqc::quic {
namespace {

constexpr int kMaxCoalesced = 32;

// Long-header packet types (RFC 9000 §17.2, version 1).
enum : uint8_t { kInitial = 0, kZeroRtt = 1, kHandshake = 2, kRetry = 3 };

bool Skip(std::span<const unsigned char> d, size_t* pos, uint64_t n) {
  if (n > d.size() - *pos) return false;
  *pos += static_cast<size_t>(n);
  return true;
}

bool SkipConnectionId(std::span<const unsigned char> d, size_t* pos) {
  if (*pos >= d.size()) return false;
  const uint8_t len = d[(*pos)++];
  return len <= 20 && Skip(d, pos, len);  // §17.2: at most 20 bytes in version 1
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
    const uint8_t first = d[pos];
    if ((first & 0x80) == 0) {  // a short header: the packet fills the rest (§12.2)
      out.short_header = true;
      return out;
    }
    size_t p = pos + 1;
    uint64_t version = 0;
    for (int i = 0; i < 4; ++i, ++p) {
      if (p >= d.size()) {
        out.malformed = true;
        return out;
      }
      version = (version << 8) | d[p];
    }
    // Version negotiation (version 0) has no Length: it cannot be coalesced; not ours to send.
    if (version == 0 || !SkipConnectionId(d, &p) || !SkipConnectionId(d, &p)) {
      out.malformed = true;
      return out;
    }
    const uint8_t type = (first >> 4) & 0x3;
    if (type == kRetry) {  // a Retry has no Length: it is the whole rest of the datagram
      ++out.retry;
      return out;
    }
    uint64_t token = 0, length = 0;
    if ((type == kInitial && (!ReadVarint(d, &p, &token) || !Skip(d, &p, token))) ||
        !ReadVarint(d, &p, &length) || !Skip(d, &p, length)) {
      out.malformed = true;
      return out;
    }
    if (type == kInitial) ++out.initial;
    if (type == kZeroRtt) ++out.zero_rtt;
    if (type == kHandshake) ++out.handshake;
    pos = p;
  }
  return out;
}

}  // namespace pqc::quic
