#include "core/stop_signals.h"

#include <poll.h>
#include <pthread.h>
#include <sys/signalfd.h>

#include <cerrno>
#include <ctime>

namespace pqc {

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, &old_);
}

StopSignals::~StopSignals() {
  (void)Pending();
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

bool StopSignals::Pending() {
  timespec zero{};
  bool any = false;
  while (sigtimedwait(&set_, nullptr, &zero) > 0) any = true;
  return any;
}

int StopSignals::WaitUntil(Nanos deadline) {
  constexpr Nanos kSecond = 1'000'000'000;
  // Bounded by the deadline (or by a signal when there is none): EINTR only repeats the wait.
  for (;;) {
    int sig = 0;
    if (deadline == 0) {
      if (sigwait(&set_, &sig) == 0) return sig;
      continue;
    }
    const Nanos left = deadline - MonotonicNow();
    if (left <= 0) return 0;
    timespec ts{static_cast<time_t>(left / kSecond), static_cast<long>(left % kSecond)};
    sig = sigtimedwait(&set_, nullptr, &ts);
    if (sig > 0) return sig;
    if (errno == EAGAIN) return 0;  // the deadline passed
  }
}

int StopSignals::WaitUntil(Nanos deadline, int watch_fd) {
  if (watch_fd < 0) return WaitUntil(deadline);
  if (!signal_fd_.valid()) {
    // The signals are blocked, so they stay queued for this descriptor (or for sigtimedwait
    // in Pending): either consumes each one once.
    signal_fd_.reset(signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!signal_fd_.valid()) return WaitUntil(deadline);  // no fd left: signals only
  }
  // Bounded by the deadline (or by a signal or the descriptor when there is none).
  for (;;) {
    int timeout_ms = -1;
    if (deadline != 0) {
      const Nanos left = deadline - MonotonicNow();
      if (left <= 0) return 0;
      timeout_ms = static_cast<int>((left + 999'999) / 1'000'000);
    }
    pollfd fds[2] = {{signal_fd_.get(), POLLIN, 0}, {watch_fd, POLLIN, 0}};
    const int n = poll(fds, 2, timeout_ms);
    if (n < 0 && errno != EINTR) return 0;
    if (n <= 0) continue;
    if ((fds[0].revents & POLLIN) != 0) {
      signalfd_siginfo info{};
      if (read(signal_fd_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        return static_cast<int>(info.ssi_signo);
      }
    }
    if ((fds[1].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) != 0) return kWatchReady;
  }
}

}  // namespace pqc
