// EventLoop — one epoll loop per thread, wrk-style: every connection, listener and timer of a
// thread lives in its loop and nothing on the hot path is shared between threads. It is NOT
// thread-safe by design; the one exception is Stop(), which another thread may call.
//
// Readiness is level-triggered with explicit interest updates (Modify): a handler that reads
// only part of what is available is called again, so no edge can be lost.
//
// Timers sit on a binary min-heap over MonotonicNow() nanoseconds, and the earliest deadline
// arms a timerfd (CLOCK_MONOTONIC, absolute) inside the epoll set: epoll_wait's millisecond
// timeout is too coarse for an open-loop load generator that must start each connection within
// microseconds of its intended time.
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_set>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "core/fd.h"

namespace pqc {

// Interest and readiness bits. kIoError and kIoHangup are only ever reported (the kernel
// always reports them), never requested.
inline constexpr uint32_t kIoRead = 1u << 0;
inline constexpr uint32_t kIoWrite = 1u << 1;
inline constexpr uint32_t kIoError = 1u << 2;
inline constexpr uint32_t kIoHangup = 1u << 3;

// IoHandler receives the ready bits of its fd.
using IoHandler = std::function<void(uint32_t events)>;
using TimerCallback = std::function<void()>;
// TimerId: unique per loop, never reused; 0 is never a valid id.
using TimerId = uint64_t;

class EventLoop {
 public:
  // Create: a loop needs three kernel objects (epoll, timerfd, eventfd), any of which can fail.
  static Result<std::unique_ptr<EventLoop>> Create();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;
  ~EventLoop() = default;

  // Add: watch fd for the interest bits. The loop does not own fd: Remove it before closing.
  // Handlers may Add, Modify and Remove any fd (themselves included) and timers while they run.
  Status Add(int fd, uint32_t interest, IoHandler handler);
  // Modify: new interest bits; a no-op (no system call) if they are unchanged.
  Status Modify(int fd, uint32_t interest);
  // Remove: stop watching fd. Its handler is never called again, even if the fd is ready in
  // the batch being dispatched right now. Unknown fds are ignored.
  void Remove(int fd);

  // AddTimer: run callback once MonotonicNow() >= deadline_ns. Equal deadlines fire in the
  // order they were added. A deadline in the past fires on the next RunOnce.
  TimerId AddTimer(Nanos deadline_ns, TimerCallback callback);
  // CancelTimer: true if the timer was pending (and now will not fire).
  bool CancelTimer(TimerId id);

  // RunOnce: wait for readiness (at most max_wait_ns, rounded up to whole milliseconds;
  // negative = no limit, timers still wake it precisely), dispatch it, then fire due timers.
  // Not re-entrant: handlers must not call RunOnce or Run.
  Status RunOnce(Nanos max_wait_ns);
  // Run: RunOnce until Stop(). A Stop() issued before Run() makes it return at once.
  Status Run();
  // Stop: thread-safe; wakes the loop through an eventfd so that Run returns promptly.
  void Stop();

  // SetBusyPoll: RunOnce polls epoll without sleeping until an fd is ready, a timer is due or
  // max_wait has passed. A sleeping thread pays a wake-up on every event — on a virtual
  // machine 50–200 µs at the median and milliseconds in the tail, since the hypervisor
  // deschedules an idle vCPU — and that lands on every connect time and start lag a client
  // measures. Polling costs a whole CPU while the loop runs; a latency measurement at a modest
  // rate can afford it (sockperf's --busy-poll is the same idea).
  void SetBusyPoll(bool on) { busy_poll_ = on; }
  bool busy_poll() const { return busy_poll_; }

  size_t fd_count() const { return active_fds_; }
  size_t timer_count() const { return live_timers_.size(); }

 private:
  struct FdEntry {
    IoHandler handler;
    uint32_t interest = 0;
    uint32_t serial = 0;  // changes on every Add: tells stale epoll events apart
    bool active = false;
  };
  struct Timer {
    Nanos deadline;
    TimerId id;  // increasing, so it doubles as the FIFO tie-break
    TimerCallback callback;
  };

  EventLoop(ScopedFd epoll, ScopedFd timer, ScopedFd wake);
  void Dispatch(const epoll_event& ev);
  void FireDueTimers();
  void DropDeadTop();
  void ArmTimerFd(Nanos deadline);
  void Compact();
  int PollUntilReady(Nanos max_wait_ns);

  ScopedFd epoll_;
  ScopedFd timer_fd_;
  ScopedFd wake_fd_;
  std::atomic<bool> stop_{false};
  bool busy_poll_ = false;

  std::vector<FdEntry> fds_;  // indexed by fd number
  size_t active_fds_ = 0;
  uint32_t next_serial_ = 1;  // 0 marks the loop's own fds
  std::vector<epoll_event> events_;

  std::vector<Timer> heap_;
  std::unordered_set<TimerId> live_timers_;  // pending ids; cancelled ones leave lazily
  size_t dead_timers_ = 0;                   // cancelled entries still in heap_
  TimerId next_timer_id_ = 1;
  Nanos armed_deadline_ = -1;  // what timer_fd_ is set to, -1 if not armed
};

}  // namespace pqc
