#include "server/cpu_time.h"

#include <sys/resource.h>
#include <time.h>

namespace pqc {
namespace {

Nanos ToNanos(const timeval& tv) {
  return static_cast<Nanos>(tv.tv_sec) * 1'000'000'000 + static_cast<Nanos>(tv.tv_usec) * 1'000;
}

CpuTime Usage(int who) {
  rusage ru{};
  // getrusage fails only for an invalid `who`, which these constants are not.
  if (getrusage(who, &ru) != 0) return {};
  return CpuTime{ToNanos(ru.ru_utime), ToNanos(ru.ru_stime)};
}

}  // namespace

CpuTime ProcessCpu() {
  return Usage(RUSAGE_SELF);
}
CpuTime ThreadCpu() {
  return Usage(RUSAGE_THREAD);
}

void SpendCpu(Nanos ns) {
  auto now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<Nanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  };
  const Nanos until = now() + ns;
  while (now() < until) {
  }
}

}  // namespace pqc
