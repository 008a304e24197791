// packet_scheduler — the decisions of one direction of the emulated link, as pure code over
// (arrival time, size): lose it (random or Gilbert–Elliott burst loss), drop it at a full
// queue, or release it at a computed time. Kept free of sockets and threads so that loss
// statistics, tail drop and delay arithmetic are unit-tested exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>

#include "core/clock.h"
#include "link/link_profile.h"

namespace pqc::link {

// LossModel: random loss plus a two-state Gilbert–Elliott chain. Per packet: the state moves
// (good→bad with p, bad→good with r), then the packet is lost with loss_bad in the bad state,
// and independently with `loss` in either state. Stationary burst loss = p/(p+r) * loss_bad.
class LossModel {
 public:
  LossModel(const LinkProfile& profile, uint64_t seed);
  bool Lose();
  bool bad() const { return bad_; }

 private:
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> u01_{0.0, 1.0};
  double loss_, p_, r_, loss_bad_;
  bool bad_ = false;
};

enum class Verdict : uint8_t { kForward, kLost, kQueueFull };

// PacketScheduler: arrival → verdict and release time. Model: a lost packet vanishes; an
// accepted one waits for the serialiser (rate_bps; a packet of B bytes occupies it B*8/rate
// seconds), then travels rtt/2 ± jitter. At most queue_packets packets may be waiting for or
// in serialisation; one more is tail-dropped. Without reorder, release times never decrease
// (a packet with less jitter waits for the one ahead of it).
class PacketScheduler {
 public:
  // stream: distinguishes the two directions' random streams under one profile seed.
  PacketScheduler(const LinkProfile& profile, uint64_t stream);

  // Schedule: `now` must not decrease between calls. On kForward, *release is set.
  Verdict Schedule(Nanos now, size_t bytes, Nanos* release);

  // queued: packets waiting for or in serialisation as of the last Schedule call.
  size_t queued() const { return serialising_.size(); }

 private:
  LossModel loss_;
  std::mt19937_64 jitter_rng_;
  Nanos one_way_;
  Nanos jitter_;
  uint64_t rate_bps_;
  size_t queue_limit_;
  bool reorder_;
  Nanos link_free_ = 0;            // when the serialiser finishes the last accepted packet
  std::deque<Nanos> serialising_;  // finish times of accepted packets not yet serialised
  Nanos last_release_ = 0;
};

}  // namespace pqc::link
