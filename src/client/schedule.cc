#include "client/schedule.h"

#include <cmath>

namespace pqc {

Lane ScheduleLane(const LoadOptions& options, unsigned index, unsigned threads) {
  return {static_cast<uint64_t>(options.shard.index) * threads + index,
          static_cast<uint64_t>(options.shard.count) * threads};
}

Schedule::Schedule(const LoadOptions& options, unsigned index, unsigned threads, Nanos start)
    : options_(options),
      start_(start),
      end_(start + options.warmup + options.duration),
      measure_from_(start + options.warmup),
      lane_(ScheduleLane(options, index, threads)) {
  thread_rate_ = options.rate / static_cast<double>(lane_.count);
  rng_.seed(options.seed * 1'000'003 + lane_.index);
  for (const MixWeight& w : options.mix) total_weight_ += w.weight;
  if (options.arrivals == Arrivals::kUniform) {
    next_offset_s_ = static_cast<double>(lane_.index) / options.rate;
  } else {
    next_offset_s_ = std::exponential_distribution<double>(thread_rate_)(rng_);
  }
}

ConnMode Schedule::PickMode() {
  if (options_.mix.size() == 1) return options_.mix.front().mode;
  double x = std::uniform_real_distribution<double>(0, total_weight_)(rng_);
  for (const MixWeight& w : options_.mix) {
    if (x < w.weight) return w.mode;
    x -= w.weight;
  }
  return options_.mix.back().mode;
}

std::optional<Arrival> Schedule::Next() {
  const Nanos at = start_ + static_cast<Nanos>(std::llround(next_offset_s_ * 1e9));
  if (at >= end_) return std::nullopt;
  if (options_.arrivals == Arrivals::kUniform) {
    // Computed from the count, not accumulated, so that rounding cannot drift over a run.
    ++count_;
    next_offset_s_ =
        (static_cast<double>(lane_.index) + static_cast<double>(count_ * lane_.count)) /
        options_.rate;
  } else {
    next_offset_s_ += std::exponential_distribution<double>(thread_rate_)(rng_);
  }
  return Arrival{at, PickMode(), at >= measure_from_};
}

std::optional<Arrival> Schedule::NextClosed(Nanos now) {
  if (now >= end_) return std::nullopt;
  return Arrival{now, PickMode(), now >= measure_from_};
}

}  // namespace pqc
