#include "client/fd_limit.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>

namespace pqc {
namespace {

constexpr uint64_t kSpareFds = 64;     // epoll, timerfds, eventfds, database, logs, ...
constexpr uint64_t kFdsPerThread = 3;  // each client thread's epoll, timerfd and eventfd

}  // namespace

uint64_t WorstCaseOpenConnections(const LoadOptions& o) {
  const double lifetime_s =
      (static_cast<double>(o.timeout) +
       static_cast<double>(o.requests) * static_cast<double>(o.request_interval)) /
      1e9;
  const double open = std::ceil(std::max(0.0, o.rate) * lifetime_s);
  // Compared as doubles: a huge rate × timeout must not overflow before the cap applies.
  if (open >= static_cast<double>(o.max_inflight)) return o.max_inflight;
  return std::max<uint64_t>(1, static_cast<uint64_t>(open));
}

uint64_t FileDescriptorsNeeded(const LoadOptions& o) {
  return WorstCaseOpenConnections(o) + kSpareFds + kFdsPerThread * o.threads;
}

Status EnsureFileLimit(const LoadOptions& o, std::string_view what) {
  const uint64_t needed = FileDescriptorsNeeded(o);
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return {};
  if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= needed) return {};
  if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max >= needed) {
    rlimit raised{static_cast<rlim_t>(needed), lim.rlim_max};
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return {};
  }
  const uint64_t open = WorstCaseOpenConnections(o);
  return MakeError(
      ErrorKind::kUsage,
      fmt::format("{}{}up to {} connections can be open at once (rate {:g}/s × (timeout {:g} s "
                  "+ {} requests × request interval {:g} s), at most max-inflight {}), which "
                  "needs {} file descriptors, but the limit is {} (hard {}); run `ulimit -n {}` "
                  "first, or lower the rate, the timeout or --max-inflight",
                  what, what.empty() ? "" : ": ", open, o.rate,
                  static_cast<double>(o.timeout) / 1e9, o.requests,
                  static_cast<double>(o.request_interval) / 1e9, o.max_inflight, needed,
                  lim.rlim_cur, lim.rlim_max, needed));
}

}  // namespace pqc
