// Clock — CLOCK_MONOTONIC in nanoseconds: the one time base of every recorded timestamp,
// so that phases of a connection subtract without wall-clock jumps.
#pragma once

#include <time.h>

#include <cstdint>

namespace pqc {

using Nanos = int64_t;

inline Nanos MonotonicNow() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<Nanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// UnixNowNs: the wall clock (CLOCK_REALTIME), for timestamps a reader compares with dates —
// never subtracted from a monotonic one.
inline int64_t UnixNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline double NanosToMicros(Nanos ns) {
  return static_cast<double>(ns) / 1e3;
}

}  // namespace pqc
