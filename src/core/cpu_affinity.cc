#include "core/cpu_affinity.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pthread.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace pqc {
namespace {

cpu_set_t Available() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) CPU_ZERO(&set);
  return set;
}

}  // namespace

std::string AvailableCpusText() {
  const cpu_set_t set = Available();
  std::vector<std::string> ranges;
  for (unsigned c = 0; c <= kMaxCpu; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    unsigned last = c;
    while (last < kMaxCpu && CPU_ISSET(last + 1, &set)) ++last;
    ranges.push_back(last == c ? fmt::format("{}", c) : fmt::format("{}-{}", c, last));
    c = last;
  }
  return ranges.empty() ? std::string("none") : fmt::format("{}", fmt::join(ranges, ","));
}

Result<cpu_set_t> CpuSetOf(std::span<const unsigned> cpus, std::string_view what) {
  const cpu_set_t available = Available();
  cpu_set_t set;
  CPU_ZERO(&set);
  for (unsigned c : cpus) {
    if (c > kMaxCpu || !CPU_ISSET(c, &available)) {
      return MakeError(ErrorKind::kConfig,
                       fmt::format("{}: CPU {} is not one this process may run on (available: {})",
                                   what, c, AvailableCpusText()));
    }
    CPU_SET(c, &set);
  }
  if (CPU_COUNT(&set) == 0) {
    return MakeError(ErrorKind::kConfig, fmt::format("{}: no CPU named", what));
  }
  return set;
}

Status PinThread(std::thread& thread, const cpu_set_t& set) {
  const int rc = pthread_setaffinity_np(thread.native_handle(), sizeof set, &set);
  if (rc != 0) {
    return MakeError(ErrorKind::kSystem, fmt::format("pthread_setaffinity_np: {}", strerror(rc)));
  }
  return {};
}

}  // namespace pqc
