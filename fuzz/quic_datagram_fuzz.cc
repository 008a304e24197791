// quic_datagram_fuzz — libFuzzer target for the QUIC datagram scan (quic/datagram_scan.h),
// which reads every datagram the client and the server send or receive. Besides crashes it
// checks what the counters rely on: no more packets than the coalescing bound, and a
// datagram whose first byte has no long-header bit read as a 1-RTT packet and nothing else.
//
// Input: one datagram.
#include <cstddef>
#include <cstdint>
#include <span>

#include "quic/datagram_scan.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const unsigned char> d(data, size);
  const pqc::quic::DatagramPackets p = pqc::quic::ScanDatagram(d);
  Check(p.initial + p.zero_rtt + p.handshake + p.retry <= 32);
  if (size > 0 && (data[0] & 0x80) == 0) {
    Check(p.short_header && p.initial + p.zero_rtt + p.handshake + p.retry == 0 && !p.malformed);
  }
  if (size == 0) Check(!p.short_header && !p.malformed && p.initial == 0);
  size_t pos = 0;
  uint64_t v = 0;
  if (pqc::quic::ReadVarint(d, &pos, &v)) Check(pos >= 1 && pos <= 8 && pos <= size);
  return 0;
}
