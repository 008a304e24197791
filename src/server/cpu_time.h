// cpu_time — CPU consumed, as getrusage reports it, so that a run can state what a handshake
// costs the server in CPU and not only in latency. The process figure is what an outside
// observer (top, the original study's sar) would see; the per-thread figure isolates the
// server's event loops when the load generator runs in the same process.
#pragma once

#include "core/clock.h"

namespace pqc {

struct CpuTime {
  Nanos user_ns = 0;
  Nanos sys_ns = 0;

  Nanos total_ns() const { return user_ns + sys_ns; }
  CpuTime& operator+=(const CpuTime& o) {
    user_ns += o.user_ns;
    sys_ns += o.sys_ns;
    return *this;
  }
  friend CpuTime operator-(CpuTime a, const CpuTime& b) {
    a.user_ns -= b.user_ns;
    a.sys_ns -= b.sys_ns;
    return a;
  }
};

// ProcessCpu: every thread of the process so far (RUSAGE_SELF).
CpuTime ProcessCpu();
// ThreadCpu: the calling thread so far (RUSAGE_THREAD).
CpuTime ThreadCpu();
// SpendCpu: keeps the calling thread busy until it has used `ns` more of CPU (its own CPU
// clock, so time it is descheduled does not count): `serve --handshake-cpu`, a server made
// slower by a known amount, which a study comparing it with the plain one must find.
void SpendCpu(Nanos ns);

}  // namespace pqc
