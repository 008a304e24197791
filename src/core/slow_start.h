// slow_start — how many round trips a flight needs on a new TCP connection. The sender may have
// `initial_window` segments unacknowledged (10 on Linux unless a route sets initcwnd; RFC
// 6928); in slow start every ACKed segment adds one, so the window doubles per round trip while
// nothing is lost: 10 segments in the first, 20 more in the second, 40 more in the third. A
// server's first flight of 11–30 segments therefore costs one extra round trip, 31–70 two.
// (A seven-certificate ml-dsa-87 chain, a 51.5 kB flight, measured 3.11 RTT at 50 ms: three.)
#pragma once

#include <cstdint>

namespace pqc {

inline constexpr uint32_t kInitialWindowSegments = 10;
// kInitialWindowBytes: those segments at MTU 1500 without TCP options (10 × 1,460 bytes), the
// figure the original study compared chains with; with timestamps it holds 14,480.
inline constexpr uint32_t kInitialWindowBytes = kInitialWindowSegments * 1460;
// kMssTimestamps: the payload of a full segment at MTU 1500 with TCP timestamps (1500 − 20 IP −
// 20 TCP − 12 options), what Linux sends between two Linux hosts.
inline constexpr uint32_t kMssTimestamps = 1448;

// SlowStartRoundTrips: the round trips in which `segments` are delivered, at least 1.
inline uint32_t SlowStartRoundTrips(double segments,
                                    uint32_t initial_window = kInitialWindowSegments) {
  uint32_t rtts = 1;
  double window = initial_window, delivered = initial_window;
  // Bounded: the delivered total doubles each pass (64 passes exceed any flight).
  while (delivered < segments && rtts < 64) {
    window *= 2;
    delivered += window;
    ++rtts;
  }
  return rtts;
}

// SegmentsFor: full segments of `mss` bytes that `bytes` need at the least (a server that
// writes its flight in pieces fills some segments partly and needs more).
inline uint32_t SegmentsFor(uint64_t bytes, uint32_t mss = kMssTimestamps) {
  return static_cast<uint32_t>((bytes + mss - 1) / mss);
}

}  // namespace pqc
