// schedule — the open-loop arrival times of one load thread. Arrivals are fixed in advance
// from the rate, never from completions, so a slow server cannot slow the client down and
// hide its own latency (coordinated omission): each connection's `total` is measured from
// its intended start, and the lag between intended and actual start is tracked.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "records/load_options.h"

namespace pqc {

struct Arrival {
  Nanos intended;
  ConnMode mode;
  bool measured;  // false during warm-up
};

// Lane: thread `index` of `threads` in this process, among the lanes of every shard.
struct Lane {
  uint64_t index, count;
};
Lane ScheduleLane(const LoadOptions& options, unsigned index, unsigned threads);

class Schedule {
 public:
  // Thread `index` of `threads` shares the global rate with every thread of every shard: it
  // is lane ScheduleLane(...) of threads × shards. Uniform arrivals interleave (global arrival
  // j goes to lane j mod lanes), Poisson ones are independent streams at rate/lanes, seeded
  // per lane (their superposition is Poisson at the full rate). So N shards started at one
  // barrier make, together, the schedule one host with all their threads would have made.
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
  Lane lane_;
  uint64_t count_ = 0;
};

}  // namespace pqc
