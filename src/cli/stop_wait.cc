#include "cli/stop_wait.h"

#include <cerrno>
#include <ctime>

namespace pqc::cli {

int WaitForStop(const sigset_t& signals, Nanos deadline) {
  constexpr Nanos kSecond = 1'000'000'000;
  for (;;) {
    int sig = 0;
    if (deadline == 0) {
      if (sigwait(&signals, &sig) == 0) return sig;
      continue;
    }
    const Nanos left = deadline - MonotonicNow();
    if (left <= 0) return 0;
    timespec ts{static_cast<time_t>(left / kSecond), static_cast<long>(left % kSecond)};
    sig = sigtimedwait(&signals, nullptr, &ts);
    if (sig > 0) return sig;
    if (errno == EAGAIN) return 0;  // the deadline passed
  }
}

}  // namespace pqc::cli
