// mover — the two direction threads and their release loop. Over 400 lines on purpose: the
// loop's timing (when a packet is due, how late it went, what is dropped or reordered) is one
// piece of arithmetic that the counters in mover_stats.h report on, and is read best whole.
#include "link/mover.h"

#include <fmt/core.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <mutex>
#include <queue>
#include <vector>

#include "core/clock.h"
#include "link/egress_tap.h"
#include "link/error_histogram.h"
#include "link/packet_scheduler.h"

namespace pqc::link {
namespace mover {

constexpr size_t kBufferBytes = EgressReader::kPacketBytes;
constexpr size_t kHoldLimit = 32'768;             // packets held per direction at most (64 MiB)
constexpr int kReadBatch = EgressReader::kBatch;  // reads between two release checks
constexpr Nanos kSpin = 100'000;                  // timer wakes this early, then spins
constexpr int kDrainBatches = 64;                 // batches read per pass at most

struct Held {
  Nanos release;
  uint64_t seq;  // FIFO among equal release times
  uint32_t len;
  uint32_t buffer;  // index into the buffer pool
  bool operator>(const Held& o) const {
    return release != o.release ? release > o.release : seq > o.seq;
  }
};

// SpinBudget: how much of the last few milliseconds the loop may spend spinning. Spinning
// gives microsecond release times (a timer wakes 50–200 µs late on a virtual machine), but a
// SCHED_FIFO thread that never sleeps starves everything else on its CPU until the kernel takes
// the CPU back in one block: the fair server's 50 ms (RT throttling on older kernels). At
// 1 Gbit/s a packet is due every 12 µs, so without a budget the mover spun without end and
// released packets up to 49 ms late. Over budget, the loop sleeps on the timer instead and a
// release is as late as the timer's wake-up, which the release-error statistics show.
class SpinBudget {
 public:
  bool Allows(Nanos now) {
    Roll(now);
    return spent_ < kBudget;
  }
  void Spent(Nanos from, Nanos to) {
    Roll(to);
    spent_ += to - from;
  }

 private:
  void Roll(Nanos now) {
    if (now - window_start_ >= kWindow) {
      window_start_ = now;
      spent_ = 0;
    }
  }
  static constexpr Nanos kWindow = 10'000'000;  // 10 ms
  static constexpr Nanos kBudget = 2'500'000;   // a quarter of it
  Nanos window_start_ = 0;
  Nanos spent_ = 0;
};

// TapPollInterval: with kernel timestamps a packet need not be read the moment it leaves,
// only before it is due, so the mover can read the taps on a timer instead of being woken by
// each packet. That wake-up is paid by the sender: its send() (or connect()) runs the tap's
// wake-up of the mover — on a virtual machine connect() took 46 µs with it and 20 µs without
// (9 µs on a bare TUN device). Three intervals (one waiting to be read, two for a late timer)
// and the spin before release must fit in the shortest one-way delay; at most 1 ms (an idle
// link then costs ~2 % of a CPU). Not below 0.5 ms: a FIFO thread's timer every 133 µs (1 ms
// of RTT) took so much CPU from the endpoints that a CPU-bound ml-dsa-44 handshake at 1 ms of
// RTT went from 3.0–3.1 to 3.3–3.5 ms (p50). Shorter delays keep the per-packet wake-up
// (0 = off).
Nanos TapPollInterval(const LinkProfile& profile) {
  const Nanos shortest = profile.rtt / 2 - profile.jitter;
  const Nanos interval = std::min<Nanos>(1'000'000, (shortest - kSpin) / 3);
  return interval >= 500'000 ? interval : 0;
}

// Direction: one way's scheduler, held packets and counters. Driven by one Loop (one thread);
// the counters and histogram are updated under mu_ once per loop pass (not per packet), so
// stats() can read them while the thread runs.
class Direction {
 public:
  Direction(const LinkProfile& profile, uint64_t stream, EgressReader in, int out,
            UdpFlowTally* flows, bool to_server)
      : scheduler_(profile, stream), in_(in), out_(out), flows_(flows), to_server_(to_server) {
    std::fill(std::begin(staging_), std::end(staging_), kNoBuffer);
  }

  int in() const { return in_.fd(); }
  bool kernel_timestamps() const { return in_.kernel_timestamps(); }
  bool pending() const { return !heap_.empty(); }
  Nanos next_release() const { return heap_.top().release; }

  // ReadAvailable: up to kReadBatch packets, each scheduled from its departure time; returns
  // how many were read.
  int ReadAvailable() {
    char* bufs[kReadBatch];
    for (int i = 0; i < kReadBatch; ++i) {
      if (staging_[i] == kNoBuffer) staging_[i] = TakeBuffer();
      bufs[i] = pool_[staging_[i]].data();
    }
    Arrival arrivals[kReadBatch];
    const int got = in_.Read(bufs, arrivals);
    for (int i = 0; i < got; ++i) {
      flows_->Departed({reinterpret_cast<const unsigned char*>(bufs[i]), arrivals[i].len},
                       to_server_);
      Nanos release = 0;
      Verdict v = heap_.size() >= kHoldLimit
                      ? Verdict::kQueueFull
                      : scheduler_.Schedule(arrivals[i].at, arrivals[i].len, &release);
      if (v != Verdict::kForward) {
        ++(v == Verdict::kLost ? pass_.dropped_loss : pass_.dropped_queue);
        continue;  // the staging buffer is reused
      }
      heap_.push(Held{release, seq_++, arrivals[i].len, staging_[i]});
      staging_[i] = kNoBuffer;
    }
    return got;
  }

  void ReleaseDue() {
    while (!heap_.empty()) {
      const Held h = heap_.top();
      const Nanos now = MonotonicNow();
      if (h.release > now) return;
      heap_.pop();
      pass_errors_.push_back(now - h.release);
      if (write(out_, pool_[h.buffer].data(), h.len) == static_cast<ssize_t>(h.len)) {
        ++pass_.packets;
        pass_.bytes += h.len;
        flows_->Delivered({reinterpret_cast<const unsigned char*>(pool_[h.buffer].data()), h.len},
                          to_server_);
      } else {
        ++pass_.write_errors;
      }
      free_.push_back(h.buffer);
    }
  }

  void SetRealtime(bool realtime) {
    std::lock_guard lock(mu_);
    totals_.realtime = realtime;
  }

  void Publish(bool realtime) {
    pass_.dropped_ingress += in_.TakeDrops();
    if (pass_errors_.empty() && pass_.dropped_ingress == 0 && pass_.dropped_loss == 0 &&
        pass_.dropped_queue == 0 && pass_.write_errors == 0) {
      return;
    }
    std::lock_guard lock(mu_);
    totals_.AddCounts(pass_);
    totals_.realtime = realtime;
    for (Nanos e : pass_errors_) errors_.Add(e);
    pass_ = MoverStats{};
    pass_errors_.clear();
  }

  // Snapshot: adds this direction's totals into `out` and its errors into `hist`.
  void Snapshot(MoverStats& out, ErrorHistogram& hist) const {
    std::lock_guard lock(mu_);
    out.AddCounts(totals_);
    out.realtime = out.realtime || totals_.realtime;
    out.kernel_timestamps = in_.kernel_timestamps();
    hist.Merge(errors_);
  }

 private:
  uint32_t TakeBuffer() {
    if (!free_.empty()) {
      uint32_t b = free_.back();
      free_.pop_back();
      return b;
    }
    pool_.emplace_back(kBufferBytes);
    return static_cast<uint32_t>(pool_.size() - 1);
  }

  static constexpr uint32_t kNoBuffer = UINT32_MAX;

  PacketScheduler scheduler_;
  EgressReader in_;
  int out_;
  UdpFlowTally* flows_;  // the site's, shared by its two directions
  bool to_server_;
  uint32_t staging_[kReadBatch];  // receive buffers not yet holding a packet
  std::priority_queue<Held, std::vector<Held>, std::greater<Held>> heap_;
  std::vector<std::vector<char>> pool_;
  std::vector<uint32_t> free_;
  uint64_t seq_ = 0;
  MoverStats pass_;  // since the last Publish (this thread only)
  std::vector<Nanos> pass_errors_;

  mutable std::mutex mu_;
  MoverStats totals_;
  ErrorHistogram errors_;
};

// Loop: one thread driving one or both directions. With both on one thread, a packet the
// kernel answers synchronously while we write it (a SYN-ACK, an ACK) is read on the next pass
// without any thread wake-up, which on a virtual machine costs ~0.1–0.3 ms.
class Loop {
 public:
  // poll > 0: read the taps at least that often instead of being woken by each packet.
  Loop(std::vector<Direction*> dirs, int stop, Nanos poll)
      : dirs_(std::move(dirs)), stop_(stop), poll_(poll) {}

  Status Init() {
    timer_.reset(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
    epoll_.reset(epoll_create1(EPOLL_CLOEXEC));
    if (!timer_.valid() || !epoll_.valid()) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("mover: timerfd/epoll: {}", std::strerror(errno)));
    }
    std::vector<int> fds = {timer_.get(), stop_};
    for (Direction* d : dirs_) poll_ = d->kernel_timestamps() ? poll_ : 0;
    if (poll_ == 0) {
      for (Direction* d : dirs_) fds.push_back(d->in());
    }
    for (int fd : fds) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
        return MakeError(ErrorKind::kSystem,
                         fmt::format("mover: epoll_ctl: {}", std::strerror(errno)));
      }
    }
    return {};
  }

  void Run() {
    prctl(PR_SET_TIMERSLACK, 1UL);  // the timer fires within 1 ns of its slack, not 50 µs
    // Real-time priority (the lowest, best effort): a busy machine delays the mover's wake-up
    // by scheduler time slices otherwise — milliseconds, not microseconds. The kernel's RT
    // throttling still leaves 5 % of each CPU to others, and the thread sleeps whenever no
    // packet is due within kSpin, so it only takes what forwarding costs.
    sched_param sp{};
    sp.sched_priority = 1;
    const bool realtime = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
    for (Direction* d : dirs_) d->SetRealtime(realtime);
    last_blocked_ = MonotonicNow();
    while (!stopping_) {
      RestIfNeverBlocked();
      // Drain each tap (bounded): a polling loop is not woken again for what one batch left.
      for (Direction* d : dirs_) {
        for (int i = 0; i < kDrainBatches && d->ReadAvailable() == kReadBatch; ++i) {
        }
      }
      for (Direction* d : dirs_) d->ReleaseDue();
      for (Direction* d : dirs_) d->Publish(realtime);
      Nanos next = 0;
      for (Direction* d : dirs_) {
        if (d->pending() && (next == 0 || d->next_release() < next)) next = d->next_release();
      }
      const Nanos now = MonotonicNow();
      if (next == 0) {
        if (poll_ > 0) Arm(now + poll_);
        Wait();
        continue;
      }
      const bool spin = budget_.Allows(now);
      if (spin && next - now <= kSpin) {
        // Spin to the release time, still taking arrivals so their timestamps stay true.
        while (MonotonicNow() < next && !stopping_) {
          bool earlier = false;
          for (Direction* d : dirs_) {
            earlier |= d->ReadAvailable() > 0 && d->next_release() < next;
          }
          if (earlier) break;
        }
        budget_.Spent(now, MonotonicNow());
        continue;
      }
      const Nanos wake = spin ? next - kSpin : next;
      Arm(poll_ > 0 ? std::min(wake, now + poll_) : wake);
      Wait();
    }
  }

  void Stop() { stopping_ = true; }

 private:
  // RestIfNeverBlocked: a loop with work every few microseconds (1 Gbit/s) never blocks, and
  // as a SCHED_FIFO thread it then starves the CFS threads of its CPU — above all that CPU's
  // ksoftirqd, which runs the network receive work that inline softirq processing defers.
  // Measured at 1 Gbit/s: ksoftirqd/0 waited 1.65 s of a 6 s transfer and releases were up to
  // 44–57 ms late (about the fair server's 50 ms, by which the kernel takes the CPU back for
  // starved tasks); with this rest, ksoftirqd/0 waited 1.4–1.9 ms and releases at most 31–36
  // ms. A short sleep every few busy milliseconds lets them run.
  void RestIfNeverBlocked() {
    const Nanos now = MonotonicNow();
    if (now - last_blocked_ < kMaxBusy) return;
    const timespec rest{0, kRest};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &rest, nullptr);
    last_blocked_ = MonotonicNow();
  }

  // Arm: the timer fires at `wake` or earlier. Setting a timerfd costs a few microseconds
  // (on this kind of guest, re-enabling interrupts traps to the hypervisor): a quarter of the
  // mover's time at 1 Gbit/s when every pass re-armed it. An earlier wake-up than needed only
  // costs one more pass, so the timer is left alone while it is set to fire no later.
  void Arm(Nanos wake) {
    if (armed_ != 0 && armed_ <= wake) return;
    itimerspec at{};
    at.it_value.tv_sec = wake / 1'000'000'000;
    at.it_value.tv_nsec = wake % 1'000'000'000;
    timerfd_settime(timer_.get(), TFD_TIMER_ABSTIME, &at, nullptr);
    armed_ = wake;
  }

  void Wait() {
    epoll_event events[16];
    const Nanos before = MonotonicNow();
    int n = epoll_wait(epoll_.get(), events, 16, -1);
    const Nanos after = MonotonicNow();
    // A wait that returned at once (work was already pending) gave the CPU to nobody.
    if (after - before >= kBlocked) last_blocked_ = after;
    for (int i = 0; i < n; ++i) {
      if (events[i].data.fd == stop_) stopping_ = true;
      if (events[i].data.fd == timer_.get()) {
        armed_ = 0;
        uint64_t expirations = 0;
        ssize_t ignored = read(timer_.get(), &expirations, sizeof expirations);
        (void)ignored;
      }
    }
  }

  std::vector<Direction*> dirs_;
  int stop_;
  Nanos poll_;
  SpinBudget budget_;
  Nanos armed_ = 0;                          // when the timer fires; 0 = not set (or already fired)
  Nanos last_blocked_ = 0;                   // when the thread last gave up its CPU
  static constexpr Nanos kBlocked = 10'000;  // a wait this long slept (a busy one is ~1 µs)
  static constexpr Nanos kMaxBusy = 2'000'000;
  static constexpr long kRest = 20'000;
  ScopedFd timer_, epoll_;
  std::atomic<bool> stopping_{false};
};

}  // namespace mover

Result<std::unique_ptr<Mover>> Mover::Start(const LinkProfile& profile, TunDevice server,
                                            TunDevice client, int threads) {
  std::vector<MoverSite> sites;
  sites.push_back({profile, std::move(server), std::move(client)});
  return Start(std::move(sites), threads);
}

Result<std::unique_ptr<Mover>> Mover::Start(std::vector<MoverSite> sites, int threads) {
  if (threads != 1 && threads != 2) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("mover threads {}: must be 1 (every direction on one thread) "
                                 "or 2 (one per way)",
                                 threads));
  }
  if (sites.empty()) return MakeError(ErrorKind::kUsage, "mover: no site to move packets for");
  std::unique_ptr<Mover> m(new Mover());
  m->sites_ = std::move(sites);
  m->stop_.reset(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!m->stop_.valid()) {
    return MakeError(ErrorKind::kSystem, fmt::format("mover: eventfd: {}", std::strerror(errno)));
  }
  // Streams 2k: site k's client → server; 2k + 1: server → site k's clients (site 0 keeps the
  // streams a one-site link always had, so its random losses replay).
  Nanos poll = -1;
  for (size_t k = 0; k < m->sites_.size(); ++k) {
    MoverSite& site = m->sites_[k];
    m->flows_.push_back(std::make_unique<UdpFlowTally>());
    m->to_server_.push_back(std::make_unique<mover::Direction>(
        site.profile, 2 * k, EgressReader(site.client.tun.get(), site.client.tap.get()),
        site.server.tun.get(), m->flows_.back().get(), true));
    m->to_client_.push_back(std::make_unique<mover::Direction>(
        site.profile, 2 * k + 1, EgressReader(site.server.tun.get(), site.server.tap.get()),
        site.client.tun.get(), m->flows_.back().get(), false));
    // One loop serves every site: it reads the taps often enough for the shortest delay.
    const Nanos p = mover::TapPollInterval(site.profile);
    poll = poll < 0 ? p : (p == 0 || poll == 0 ? 0 : std::min(poll, p));
  }
  auto raw = [](const std::vector<std::unique_ptr<mover::Direction>>& v) {
    std::vector<mover::Direction*> out;
    for (const auto& d : v) out.push_back(d.get());
    return out;
  };
  if (threads == 1) {
    std::vector<mover::Direction*> all = raw(m->to_server_);
    for (mover::Direction* d : raw(m->to_client_)) all.push_back(d);
    m->loops_.push_back(std::make_unique<mover::Loop>(all, m->stop_.get(), poll));
  } else {
    for (const auto* way : {&m->to_server_, &m->to_client_}) {
      m->loops_.push_back(std::make_unique<mover::Loop>(raw(*way), m->stop_.get(), poll));
    }
  }
  for (auto& loop : m->loops_) {
    if (Status s = loop->Init(); !s) return s.error();
  }
  for (auto& loop : m->loops_) m->threads_.emplace_back([l = loop.get()] { l->Run(); });
  return m;
}

Mover::~Mover() {
  for (auto& loop : loops_) loop->Stop();
  if (stop_.valid()) {
    uint64_t one = 1;
    ssize_t ignored = write(stop_.get(), &one, sizeof one);
    (void)ignored;
  }
  for (std::thread& t : threads_) t.join();
}

MoverStats Mover::StatsOf(size_t first, size_t end) const {
  MoverStats s;
  ErrorHistogram hist;
  for (size_t k = first; k < end && k < to_server_.size(); ++k) {
    to_server_[k]->Snapshot(s, hist);
    to_client_[k]->Snapshot(s, hist);
    s.quic.Add(flows_[k]->Stats());
  }
  s.release_error_p50_us = hist.PercentileMicros(0.50);
  s.release_error_p99_us = hist.PercentileMicros(0.99);
  s.release_error_max_us = hist.MaxMicros();
  return s;
}

MoverStats Mover::stats() const {
  return StatsOf(0, to_server_.size());
}

MoverStats Mover::site_stats(size_t k) const {
  return StatsOf(k, k + 1);
}

}  // namespace pqc::link
