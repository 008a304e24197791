// mover — the wire between pairs of TUN devices (one pair per client site: the server's device
// of that site and the site's own): a thread (one for every direction, or one for each way)
// reads packets from one device, asks that direction's PacketScheduler when (or whether) to
// deliver them, holds them, and writes them to the other device on time. Precise release: a
// timerfd wakes the thread shortly before the earliest release, then it spins the last stretch; the
// lateness of every write (actual − scheduled) is kept as the mover's own error. The threads ask
// for SCHED_FIFO (lowest priority) so that a loaded machine does not delay packets by time slices.
#pragma once

#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "core/fd.h"
#include "link/link_profile.h"
#include "link/mover_stats.h"
#include "link/tun_device.h"
#include "link/udp_flows.h"

namespace pqc::link {

namespace mover {
class Direction;
class Loop;
// TapPollInterval: how often the mover reads the taps on its own (0: it is woken by each
// packet instead); see mover.cc.
Nanos TapPollInterval(const LinkProfile& profile);
}  // namespace mover

// MoverSite: one client site's wire: its profile and its two devices (the server's end of it,
// the site's end).
struct MoverSite {
  LinkProfile profile;
  TunDevice server, client;
};

class Mover {
 public:
  // Start: takes every site's devices (non-blocking fds) and starts the threads: threads = 1
  // moves every direction on one thread (the default: a packet the kernel answers
  // synchronously, such as a SYN-ACK, is picked up without a thread wake-up, so delays stay
  // closest to the profile; several sites share it rather than spin on as many threads of a
  // small machine); 2 gives each way (to the server, to the clients) its own thread (more
  // packets per second; each answer then costs a wake-up, ~0.1–0.3 ms on a virtual machine).
  static Result<std::unique_ptr<Mover>> Start(std::vector<MoverSite> sites, int threads = 1);
  static Result<std::unique_ptr<Mover>> Start(const LinkProfile& profile, TunDevice server,
                                              TunDevice client, int threads = 1);
  Mover(const Mover&) = delete;
  Mover& operator=(const Mover&) = delete;
  // ~Mover: stops and joins the threads; packets still held are discarded.
  ~Mover();

  // stats: every site together; site_stats: site `k` alone (k < sites()).
  MoverStats stats() const;
  MoverStats site_stats(size_t k) const;
  size_t sites() const { return sites_.size(); }

 private:
  Mover() = default;
  MoverStats StatsOf(size_t first, size_t end) const;
  std::vector<MoverSite> sites_;
  ScopedFd stop_;  // eventfd: readable = stop
  // Per site: its UDP flows (both directions count into one) and its two directions (index k
  // in each). The tallies outlive the directions that point to them (declared first).
  std::vector<std::unique_ptr<UdpFlowTally>> flows_;
  std::vector<std::unique_ptr<mover::Direction>> to_server_, to_client_;
  std::vector<std::unique_ptr<mover::Loop>> loops_;
  std::vector<std::thread> threads_;
};

}  // namespace pqc::link
