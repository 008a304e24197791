// cpu_affinity — which CPUs a thread or a child server may run on. On a machine of two cores the
// load generator and the server it measures compete for the same two; where the scheduler puts
// them moves from trial to trial, and that is one source of the between-trial variance
// (docs/methodology.md, "Why trials disagree"). A study can fix the placement instead: the arm
// settings client_cpus and server_cpus. Each list is checked against the CPUs this process may
// use when the trial starts (a scenario written on one machine may name CPUs another lacks).
#pragma once

#include <sched.h>

#include <span>
#include <string>
#include <string_view>
#include <thread>

#include "core/error.h"

namespace pqc {

// kMaxCpu: the highest CPU number a list may name (a cpu_set_t's size, minus one).
inline constexpr unsigned kMaxCpu = CPU_SETSIZE - 1;

// CpuSetOf: `cpus` (not empty) as a kernel CPU set; an error naming `what` (the setting) and
// the CPUs available when one of them is not among the CPUs this process may run on.
Result<cpu_set_t> CpuSetOf(std::span<const unsigned> cpus, std::string_view what);

// AvailableCpusText: the CPUs this process may run on, "0-1" or "0,2-3".
std::string AvailableCpusText();

// PinThread: `thread` runs on `set` only (the threads it makes later inherit it).
Status PinThread(std::thread& thread, const cpu_set_t& set);

}  // namespace pqc
