#include "net/quic_header.h"

namespace pqc {
namespace {

// ReadConnectionId: a length byte and that many bytes at d[*pos], advancing *pos.
bool ReadConnectionId(std::span<const unsigned char> d, size_t* pos,
                      std::span<const unsigned char>* id) {
  if (*pos >= d.size()) return false;
  const size_t len = d[(*pos)++];
  if (len > 20 || len > d.size() - *pos) return false;
  *id = d.subspan(*pos, len);
  *pos += len;
  return true;
}

}  // namespace

std::optional<QuicLongHeader> ReadQuicLongHeader(std::span<const unsigned char> d, size_t pos) {
  if (!IsQuicLongHeader(d, pos) || d.size() - pos < 5) return std::nullopt;
  QuicLongHeader h;
  h.type = static_cast<QuicPacketType>((d[pos] >> 4) & 0x3);
  for (size_t i = 1; i <= 4; ++i) h.version = (h.version << 8) | d[pos + i];
  if (h.version == 0) return std::nullopt;
  size_t p = pos + 5;
  if (!ReadConnectionId(d, &p, &h.dcid) || !ReadConnectionId(d, &p, &h.scid)) return std::nullopt;
  h.end = p;
  return h;
}

}  // namespace pqc
