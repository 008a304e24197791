// schedule — the open-loop arrival times of one load thread. Arrivals are fixed in advance
// from the rate, never from completions, so a slow server cannot slow the client down and
// hide its own latency (coordinated omission): each connection's `total` is measured from
// its intended start, and the lag between intended and actual start is tracked.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "client/load_options.h"

namespace pqc {

struct Arrival {
  Nanos intended;
  ConnMode mode;
  bool measured;  // false during warm-up
};

class Schedule {
 public:
  // Thread `index` of `threads` shares the global rate: uniform arrivals interleave (global
  // arrival j goes to thread j mod threads), Poisson ones are independent streams at
  // rate/threads (their superposition is Poisson at the full rate).
  Schedule(const LoadOptions& options, unsigned index, unsigned threads, Nanos start);

  // Next: the next arrival, or nullopt once past warm-up + duration.
  std::optional<Arrival> Next();
  // NextClosed: a closed loop's next connection, starting `now` (so its lag is zero), or
  // nullopt once past warm-up + duration.
  std::optional<Arrival> NextClosed(Nanos now);

 private:
  ConnMode PickMode();

  const LoadOptions& options_;
  Nanos start_;
  Nanos end_;
  Nanos measure_from_;
  double thread_rate_;
  double next_offset_s_;  // seconds after start_
  std::mt19937_64 rng_;
  double total_weight_ = 0;
  unsigned index_;
  unsigned threads_;
  uint64_t count_ = 0;
};

}  // namespace pqc
