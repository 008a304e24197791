#include "net/event_loop.h"

#include <fmt/format.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <limits>
#include <utility>

namespace pqc {
namespace {

constexpr size_t kMaxEventsPerWait = 256;
constexpr size_t kCompactMinDead = 1024;

Error SysError(std::string_view what, int err) {
  return MakeError(ErrorKind::kSystem, fmt::format("{}: {}", what, strerror(err)));
}

uint32_t ToEpoll(uint32_t interest) {
  uint32_t ev = 0;
  if (interest & kIoRead) ev |= EPOLLIN;
  if (interest & kIoWrite) ev |= EPOLLOUT;
  return ev;
}

uint32_t FromEpoll(uint32_t ev) {
  uint32_t out = 0;
  if (ev & (EPOLLIN | EPOLLPRI)) out |= kIoRead;
  if (ev & EPOLLOUT) out |= kIoWrite;
  if (ev & EPOLLERR) out |= kIoError;
  if (ev & EPOLLHUP) out |= kIoHangup;
  return out;
}

uint64_t Tag(int fd, uint32_t serial) {
  return (static_cast<uint64_t>(serial) << 32) | static_cast<uint32_t>(fd);
}

// Later orders the heap so that the front is the earliest deadline, then the oldest id.
bool Later(const auto& a, const auto& b) {
  return a.deadline != b.deadline ? a.deadline > b.deadline : a.id > b.id;
}

int WaitMillis(Nanos max_wait_ns) {
  if (max_wait_ns < 0) return -1;
  Nanos ms = (max_wait_ns + 999'999) / 1'000'000;
  return static_cast<int>(std::min<Nanos>(ms, INT_MAX));
}

}  // namespace

Result<std::unique_ptr<EventLoop>> EventLoop::Create() {
  ScopedFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll.valid()) return SysError("epoll_create1", errno);
  ScopedFd timer(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  if (!timer.valid()) return SysError("timerfd_create", errno);
  ScopedFd wake(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!wake.valid()) return SysError("eventfd", errno);
  for (int fd : {timer.get(), wake.get()}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = Tag(fd, 0);
    if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
      return SysError("epoll_ctl(ADD) of the loop's own fd", errno);
    }
  }
  return std::unique_ptr<EventLoop>(
      new EventLoop(std::move(epoll), std::move(timer), std::move(wake)));
}

EventLoop::EventLoop(ScopedFd epoll, ScopedFd timer, ScopedFd wake)
    : epoll_(std::move(epoll)),
      timer_fd_(std::move(timer)),
      wake_fd_(std::move(wake)),
      events_(kMaxEventsPerWait) {}

Status EventLoop::Add(int fd, uint32_t interest, IoHandler handler) {
  if (fd < 0) return MakeError(ErrorKind::kSystem, fmt::format("cannot watch fd {}", fd));
  if (static_cast<size_t>(fd) >= fds_.size()) fds_.resize(static_cast<size_t>(fd) + 1);
  FdEntry& e = fds_[static_cast<size_t>(fd)];
  if (e.active) {
    return MakeError(ErrorKind::kSystem, fmt::format("fd {} is already in the event loop", fd));
  }
  uint32_t serial = next_serial_++;
  if (next_serial_ == 0) next_serial_ = 1;
  epoll_event ev{};
  ev.events = ToEpoll(interest);
  ev.data.u64 = Tag(fd, serial);
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
    return SysError(fmt::format("epoll_ctl(ADD) fd {}", fd), errno);
  }
  e.handler = std::move(handler);
  e.interest = interest;
  e.serial = serial;
  e.active = true;
  ++active_fds_;
  return {};
}

Status EventLoop::Modify(int fd, uint32_t interest) {
  if (fd < 0 || static_cast<size_t>(fd) >= fds_.size() || !fds_[static_cast<size_t>(fd)].active) {
    return MakeError(ErrorKind::kSystem, fmt::format("fd {} is not in the event loop", fd));
  }
  FdEntry& e = fds_[static_cast<size_t>(fd)];
  if (e.interest == interest) return {};
  epoll_event ev{};
  ev.events = ToEpoll(interest);
  ev.data.u64 = Tag(fd, e.serial);
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &ev) != 0) {
    return SysError(fmt::format("epoll_ctl(MOD) fd {}", fd), errno);
  }
  e.interest = interest;
  return {};
}

void EventLoop::Remove(int fd) {
  if (fd < 0 || static_cast<size_t>(fd) >= fds_.size()) return;
  FdEntry& e = fds_[static_cast<size_t>(fd)];
  if (!e.active) return;
  // Fails only if fd was already closed, in which case epoll has dropped it by itself.
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
  e.active = false;
  e.interest = 0;
  e.handler = nullptr;
  --active_fds_;
}

TimerId EventLoop::AddTimer(Nanos deadline_ns, TimerCallback callback) {
  TimerId id = next_timer_id_++;
  heap_.push_back(Timer{deadline_ns, id, std::move(callback)});
  std::push_heap(heap_.begin(), heap_.end(), Later<Timer, Timer>);
  live_timers_.insert(id);
  return id;
}

bool EventLoop::CancelTimer(TimerId id) {
  if (live_timers_.erase(id) == 0) return false;
  ++dead_timers_;
  if (dead_timers_ >= kCompactMinDead && dead_timers_ > heap_.size() / 2) Compact();
  return true;
}

void EventLoop::Compact() {
  std::erase_if(heap_, [this](const Timer& t) { return !live_timers_.contains(t.id); });
  std::make_heap(heap_.begin(), heap_.end(), Later<Timer, Timer>);
  dead_timers_ = 0;
}

void EventLoop::DropDeadTop() {
  while (!heap_.empty() && !live_timers_.contains(heap_.front().id)) {
    std::pop_heap(heap_.begin(), heap_.end(), Later<Timer, Timer>);
    heap_.pop_back();
    --dead_timers_;
  }
}

void EventLoop::ArmTimerFd(Nanos deadline) {
  if (deadline == armed_deadline_) return;
  itimerspec spec{};
  spec.it_value.tv_sec = static_cast<time_t>(deadline / 1'000'000'000);
  spec.it_value.tv_nsec = static_cast<long>(deadline % 1'000'000'000);
  if (timerfd_settime(timer_fd_.get(), TFD_TIMER_ABSTIME, &spec, nullptr) == 0) {
    armed_deadline_ = deadline;
  }
}

void EventLoop::FireDueTimers() {
  // Only timers that existed before this round fire now: a callback that re-adds itself at a
  // past deadline must not starve I/O.
  const TimerId limit = next_timer_id_;
  const Nanos now = MonotonicNow();
  for (;;) {
    DropDeadTop();
    if (heap_.empty()) return;
    const Timer& top = heap_.front();
    if (top.deadline > now || top.id >= limit) return;
    std::pop_heap(heap_.begin(), heap_.end(), Later<Timer, Timer>);
    Timer t = std::move(heap_.back());
    heap_.pop_back();
    live_timers_.erase(t.id);
    t.callback();
  }
}

void EventLoop::Dispatch(const epoll_event& ev) {
  const int fd = static_cast<int>(static_cast<uint32_t>(ev.data.u64));
  const uint32_t serial = static_cast<uint32_t>(ev.data.u64 >> 32);
  if (serial == 0) {  // the loop's own timerfd or eventfd: just clear it
    uint64_t count = 0;
    if (read(fd, &count, sizeof(count)) < 0) return;
    if (fd == timer_fd_.get()) armed_deadline_ = -1;
    return;
  }
  if (static_cast<size_t>(fd) >= fds_.size()) return;
  FdEntry& e = fds_[static_cast<size_t>(fd)];
  // A handler earlier in this batch may have removed fd, or removed it and added a new socket
  // that got the same number: the serial tells them apart.
  if (!e.active || e.serial != serial) return;
  // Move the handler out while it runs: it may remove itself (destroying the stored copy) or
  // add fds (reallocating fds_).
  IoHandler handler = std::move(e.handler);
  e.handler = nullptr;
  handler(FromEpoll(ev.events));
  FdEntry& after = fds_[static_cast<size_t>(fd)];
  if (after.active && after.serial == serial) after.handler = std::move(handler);
}

int EventLoop::PollUntilReady(Nanos max_wait_ns) {
  DropDeadTop();
  Nanos until = max_wait_ns < 0 ? std::numeric_limits<Nanos>::max() : MonotonicNow() + max_wait_ns;
  if (!heap_.empty()) until = std::min(until, heap_.front().deadline);
  while (true) {
    int n = epoll_wait(epoll_.get(), events_.data(), static_cast<int>(events_.size()), 0);
    if (n != 0 || MonotonicNow() >= until) return n;
  }
}

Status EventLoop::RunOnce(Nanos max_wait_ns) {
  int n = 0;
  if (busy_poll_) {
    n = PollUntilReady(max_wait_ns);
  } else {
    int timeout = WaitMillis(max_wait_ns);
    DropDeadTop();
    if (!heap_.empty()) {
      Nanos next = heap_.front().deadline;
      if (next <= MonotonicNow()) {
        timeout = 0;
      } else {
        ArmTimerFd(next);
      }
    }
    n = epoll_wait(epoll_.get(), events_.data(), static_cast<int>(events_.size()), timeout);
  }
  if (n < 0) {
    if (errno == EINTR) return {};
    return SysError("epoll_wait", errno);
  }
  for (int i = 0; i < n; ++i) Dispatch(events_[static_cast<size_t>(i)]);
  FireDueTimers();
  return {};
}

Status EventLoop::Run() {
  while (!stop_.exchange(false, std::memory_order_acq_rel)) {
    if (Status s = RunOnce(-1); !s) return s;
  }
  return {};
}

void EventLoop::Stop() {
  stop_.store(true, std::memory_order_release);
  uint64_t one = 1;
  // EAGAIN means the counter is already non-zero: the loop is being woken anyway.
  [[maybe_unused]] ssize_t n = write(wake_fd_.get(), &one, sizeof(one));
}

}  // namespace pqc
