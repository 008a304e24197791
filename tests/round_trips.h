// How many whole round trips a time measured across an emulated link took.
#pragma once

#include <cmath>

namespace pqc::test {

// The link never delivers early, and everything else on the path — signing, the event loops,
// a machine busy with other builds — only adds. So a time is its round trips plus a remainder
// that load may stretch to most of a round trip (CI once measured an ML-DSA-65 QUIC handshake
// 0.58 round trips late at R 50 ms, under two sanitizer builds). Rounding down keeps what the
// tests check — a flight that needs one more round trip is a whole R later — where rounding to
// the nearest would misread half a round trip of load as one. The 10 % below a whole round trip
// allows the emulator's timers their granularity.
inline long WholeRoundTrips(double ms, double rtt_ms) {
  return static_cast<long>(std::floor(ms / rtt_ms + 0.1));
}

}  // namespace pqc::test
