#include "core/stop_signals.h"

#include <pthread.h>

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

}  // namespace pqc
