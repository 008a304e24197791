#include "cli/serve_summary.h"

#include <fmt/core.h>

#include <string>

#include "server/server_stats_json.h"

namespace pqc::cli {

void PrintServeSummary(const ServerStats& s) {
  const double secs = static_cast<double>(s.wall_ns) / 1e9;
  fmt::print("stopped after {:.2f} s\n", secs);
  fmt::print("connections   {} accepted, {} refused{}\n", s.accepted, s.refused,
             s.refused_per_source > 0
                 ? fmt::format(", {} over the per-source limit", s.refused_per_source)
                 : "");
  fmt::print("handshakes    {} ({} full, {} resumed), {:.1f}/s\n", s.handshakes(),
             s.handshakes_full, s.handshakes_resumed, s.handshakes_per_second());
  fmt::print("requests      {} ({} not found), {} bytes sent, {} received\n", s.requests,
             s.not_found, s.bytes_sent, s.bytes_received);
  std::string errors;
  for (const auto& [name, count] : ErrorCounts(s)) {
    if (count > 0) errors += fmt::format("{}{} {}", errors.empty() ? "" : ", ", name, count);
  }
  fmt::print("errors        {}\n", errors.empty() ? "none" : errors);
  if (!s.last_tls_error.empty()) fmt::print("last TLS error: {}\n", s.last_tls_error);
  fmt::print("CPU           user {:.3f} s, sys {:.3f} s (process); server threads {:.3f} s\n",
             static_cast<double>(s.process_cpu.user_ns) / 1e9,
             static_cast<double>(s.process_cpu.sys_ns) / 1e9,
             static_cast<double>(s.worker_cpu.total_ns()) / 1e9);
  if (s.handshakes() > 0) {
    fmt::print("CPU/handshake {:.1f} us (server threads), {:.1f} us (process)\n",
               s.cpu_us_per_handshake(), s.process_cpu_us_per_handshake());
  }
  if (s.workers.size() > 1) {
    for (size_t i = 0; i < s.workers.size(); ++i) {
      const WorkerStats& w = s.workers[i];
      fmt::print("  thread {}: {} handshakes, {} requests, CPU {:.3f} s\n", i, w.handshakes,
                 w.requests, static_cast<double>(w.cpu.total_ns()) / 1e9);
    }
  }
  if (!s.loop_error.empty()) fmt::print("event loop failed: {}\n", s.loop_error);
}

}  // namespace pqc::cli
