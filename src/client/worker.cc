#include "client/worker.h"

#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <algorithm>

#include "client/connection_factory.h"
#include "http/request_writer.h"

namespace pqc {
namespace {

constexpr Nanos kSweepInterval = 20'000'000;          // timeouts are checked this often
constexpr Nanos kPublishInterval = 250'000'000;       // progress snapshots
constexpr Nanos kGatedSweepInterval = 1'000'000'000;  // LoadOptions::gate
constexpr Nanos kInterruptDrain = 2'000'000'000;      // after Ctrl-C, wait at most this long

void ThreadCpu(double* user, double* sys) {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  *user = static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) / 1e6;
  *sys = static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) / 1e6;
}

}  // namespace

Result<std::unique_ptr<Worker>> Worker::Create(const LoadOptions& options, unsigned index,
                                               unsigned threads) {
  auto loop = EventLoop::Create();
  if (!loop) return loop.error();
  // One context per thread: SSL_new on a shared context contends on its lock.
  ClientTlsConfig tls = options.tls;
  // The protocol says what carries TLS and the ALPN offered (core/protocol.h), whatever the
  // options' TLS settings say.
  tls.transport = OverQuic(options.protocol) ? Transport::kQuic : Transport::kTcp;
  tls.alpn = std::string(Describe(options.protocol).alpn);
  tls.release_buffers = options.request_interval > 0;
  auto ctx = MakeClientContext(tls);
  if (!ctx) return ctx.error();
  auto keep = BuildGetRequest(options.server_name, options.path, true);
  if (!keep) return keep.error();
  auto close = BuildGetRequest(options.server_name, options.path, false);
  if (!close) return close.error();
  (*loop)->SetBusyPoll(options.busy_poll);
  std::unique_ptr<Worker> w(new Worker(options, index, threads, std::move(*loop), std::move(*ctx)));
  w->env_.request_keep_alive = std::move(*keep);
  w->env_.request_close = std::move(*close);
  return w;
}

Worker::Worker(const LoadOptions& options, unsigned index, unsigned threads,
               std::unique_ptr<EventLoop> loop, SslCtxPtr ctx)
    : options_(options),
      index_(index),
      threads_(threads),
      loop_(std::move(loop)),
      ctx_(std::move(ctx)),
      env_{loop_.get(), ctx_.get(), &sessions_, &options_, {}, {}, std::vector<char>(64 * 1024),
           {}} {}

Worker::~Worker() {
  live_.clear();
}

void Worker::Run(Nanos start) {
  // The default 50 us timer slack would be added to every arrival's start lag.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  schedule_.emplace(options_, index_, threads_, start);
  measure_start_ = start + options_.warmup;
  loop_->AddTimer(measure_start_, [this] { MarkMeasureStart(); });
  if (options_.closed_loop > 0) {
    loop_->AddTimer(start, [this] { Refill(ClosedLoopShare()); });
  } else {
    ScheduleNext();
  }
  const Nanos sweep_every = options_.gate ? kGatedSweepInterval : kSweepInterval;
  auto sweep = [this, sweep_every](auto& self) -> void {
    Sweep();
    loop_->AddTimer(MonotonicNow() + sweep_every, [self] { self(self); });
  };
  loop_->AddTimer(MonotonicNow() + sweep_every, [sweep] { sweep(sweep); });
  if (!options_.gate) {
    auto publish = [this](auto& self) -> void {
      Publish();
      loop_->AddTimer(MonotonicNow() + kPublishInterval, [self] { self(self); });
    };
    loop_->AddTimer(MonotonicNow() + kPublishInterval, [publish] { publish(publish); });
  }

  while (true) {
    if (!loop_->RunOnce(-1)) break;  // epoll failure: stop; what was measured is kept
    Collect();
    const Nanos now = MonotonicNow();
    if (!scheduling_done_ && stop_requested_.load(std::memory_order_acquire)) {
      loop_->CancelTimer(schedule_timer_);
      scheduling_done_ = true;
      drain_deadline_ = now + std::min(options_.timeout, kInterruptDrain);
    }
    if (scheduling_done_ && live_.empty()) break;
    if (scheduling_done_ && now >= drain_deadline_) {
      for (auto& c : live_) {
        c->Abort(ErrorClass::kTimeout, "still open when the run ended");
        ++unfinished_;
      }
      Collect();
      break;
    }
  }
  MarkMeasureEnd();
  Publish();
}

void Worker::ScheduleNext() {
  std::optional<Arrival> a = schedule_->Next();
  if (!a) {
    scheduling_done_ = true;
    drain_deadline_ = MonotonicNow() + options_.timeout;
    return;
  }
  schedule_timer_ = loop_->AddTimer(a->intended, [this, arrival = *a] {
    StartConnection(arrival);
    ScheduleNext();
  });
}

uint32_t Worker::ClosedLoopShare() const {
  // The arm's closed loop over every lane of every shard, the first ones one more each.
  const uint64_t n = options_.closed_loop;
  const Lane lane = ScheduleLane(options_, index_, threads_);
  return static_cast<uint32_t>(n / lane.count + (lane.index < n % lane.count ? 1 : 0));
}

void Worker::Refill(size_t finished) {
  for (size_t i = 0; i < finished && !scheduling_done_; ++i) {
    if (options_.gate && !options_.gate(started_)) {
      scheduling_done_ = true;
      drain_deadline_ = MonotonicNow() + options_.timeout;
      return;
    }
    std::optional<Arrival> a = schedule_->NextClosed(MonotonicNow());
    if (!a) {
      scheduling_done_ = true;
      drain_deadline_ = MonotonicNow() + options_.timeout;
      return;
    }
    StartConnection(*a);
  }
}

void Worker::StartConnection(const Arrival& arrival) {
  const uint32_t limit = std::max<uint32_t>(1, options_.max_inflight / threads_);
  if (live_.size() >= limit) {
    if (arrival.measured) ++skipped_;
    return;
  }
  ConnectionRecord rec;
  rec.id = (static_cast<uint64_t>(index_) << 40) | next_id_++;
  rec.thread = static_cast<uint16_t>(index_);
  rec.mode = arrival.mode;
  rec.measured = arrival.measured;
  rec.intended_start = arrival.intended;
  auto conn = MakeConnection(env_, std::move(rec));
  conn->slot = live_.size();
  Connection* raw = conn.get();
  live_.push_back(std::move(conn));
  ++started_;
  raw->Start();
}

void Worker::Sweep() {
  const Nanos now = MonotonicNow();
  for (auto& c : live_) {
    if (!c->done() && !c->idle() && now - c->last_progress() > options_.timeout) {
      c->Abort(ErrorClass::kTimeout, fmt::format("no progress for {:.0f} ms",
                                                 static_cast<double>(options_.timeout) / 1e6));
    }
  }
}

void Worker::Collect() {
  // A connection that fails at once lands in env_.finished during Refill; it is collected on
  // the next pass, never while this loop walks the list.
  const size_t finished = env_.finished.size();
  for (Connection* c : env_.finished) {
    ConnectionRecord& rec = c->record();
    rec.first_request = static_cast<uint32_t>(requests_.size());
    for (const RequestRecord& r : c->requests()) requests_.push_back(r);
    if (rec.ok()) {
      ++completed_;
    } else {
      ++errors_;
    }
    if (rec.tls_done != 0) {
      pending_handshakes_us_.push_back(NanosToMicros(rec.tls_done - rec.tcp_established));
    }
    records_.push_back(std::move(rec));
    // Swap-remove from the live table; the moved connection learns its new slot.
    const size_t slot = c->slot;
    if (slot + 1 != live_.size()) {
      live_[slot] = std::move(live_.back());
      live_[slot]->slot = slot;
    }
    live_.pop_back();
  }
  env_.finished.clear();
  if (options_.closed_loop > 0 && !stop_requested_.load(std::memory_order_acquire)) {
    Refill(finished);
  }
}

void Worker::Publish() {
  std::lock_guard<std::mutex> lock(progress_mu_);
  progress_.started = started_;
  progress_.completed = completed_;
  progress_.errors = errors_;
  progress_.inflight = live_.size();
  progress_.new_handshakes_us.insert(progress_.new_handshakes_us.end(),
                                     pending_handshakes_us_.begin(), pending_handshakes_us_.end());
  pending_handshakes_us_.clear();
}

WorkerProgress Worker::TakeProgress() {
  std::lock_guard<std::mutex> lock(progress_mu_);
  WorkerProgress out = progress_;
  progress_.new_handshakes_us.clear();
  return out;
}

void Worker::RequestStop() {
  stop_requested_.store(true, std::memory_order_release);
  loop_->Stop();  // wakes RunOnce; the flag is what the run loop checks
}

void Worker::MarkMeasureStart() {
  measure_started_ = true;
  ThreadCpu(&cpu_user_mark_, &cpu_sys_mark_);
}

void Worker::MarkMeasureEnd() {
  if (!measure_started_) return;
  double user = 0, sys = 0;
  ThreadCpu(&user, &sys);
  cpu_user_s_ = user - cpu_user_mark_;
  cpu_sys_s_ = sys - cpu_sys_mark_;
}

}  // namespace pqc
