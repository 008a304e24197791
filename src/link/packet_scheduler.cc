// packet_scheduler — loss, tail drop and release-time arithmetic of one direction.
#include "link/packet_scheduler.h"

#include <algorithm>

namespace pqc::link {
namespace {

// Mix: a fixed, well-spread 64-bit seed per (seed, stream, purpose), so that the loss and the
// jitter streams of each direction are independent yet reproducible.
uint64_t Mix(uint64_t seed, uint64_t stream, uint64_t purpose) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream * 2 + purpose + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

LossModel::LossModel(const LinkProfile& profile, uint64_t seed)
    : rng_(seed),
      loss_(profile.loss),
      p_(profile.ge_p),
      r_(profile.ge_r),
      loss_bad_(profile.ge_loss_bad) {}

bool LossModel::Lose() {
  bool lost = false;
  if (p_ > 0) {
    bad_ = bad_ ? !(u01_(rng_) < r_) : u01_(rng_) < p_;
    if (bad_ && u01_(rng_) < loss_bad_) lost = true;
  }
  if (loss_ > 0 && u01_(rng_) < loss_) lost = true;
  return lost;
}

PacketScheduler::PacketScheduler(const LinkProfile& profile, uint64_t stream)
    : loss_(profile, Mix(profile.seed, stream, 0)),
      jitter_rng_(Mix(profile.seed, stream, 1)),
      one_way_(profile.rtt / 2),
      jitter_(profile.jitter),
      rate_bps_(profile.rate_bps),
      queue_limit_(profile.queue_packets),
      reorder_(profile.reorder) {}

Verdict PacketScheduler::Schedule(Nanos now, size_t bytes, Nanos* release) {
  while (!serialising_.empty() && serialising_.front() <= now) serialising_.pop_front();
  if (loss_.Lose()) return Verdict::kLost;
  Nanos sent = now;  // when the last bit leaves the serialiser
  if (rate_bps_ > 0) {
    if (serialising_.size() >= queue_limit_) return Verdict::kQueueFull;
    // bytes ≤ 64 KiB, so bits * 1e9 stays below 2^63.
    const uint64_t bits_ns = static_cast<uint64_t>(bytes) * 8 * 1'000'000'000;
    const auto tx = static_cast<Nanos>((bits_ns + rate_bps_ - 1) / rate_bps_);
    sent = std::max(now, link_free_) + tx;
    link_free_ = sent;
    serialising_.push_back(sent);
  }
  Nanos delay = one_way_;
  if (jitter_ > 0) {
    std::uniform_int_distribution<Nanos> d(-jitter_, jitter_);
    delay = std::max<Nanos>(0, delay + d(jitter_rng_));
  }
  Nanos at = sent + delay;
  if (!reorder_) at = std::max(at, last_release_);
  last_release_ = std::max(last_release_, at);
  *release = at;
  return Verdict::kForward;
}

}  // namespace pqc::link
