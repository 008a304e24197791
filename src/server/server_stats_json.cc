#include "server/server_stats_json.h"

#include <fmt/format.h>

#include "core/file_output.h"

namespace pqc {
namespace {

double Secs(Nanos ns) {
  return static_cast<double>(ns) / 1e9;
}

}  // namespace

nlohmann::json ServerStatsJson(const ServerStats& s) {
  nlohmann::json j;
  j["wall_s"] = Secs(s.wall_ns);
  j["connections"] = {{"accepted", s.accepted},
                      {"refused", s.refused},
                      {"accept_errors", s.accept_errors},
                      {"open_at_stop", s.open_at_stop}};
  j["handshakes"] = {{"total", s.handshakes()},
                     {"full", s.handshakes_full},
                     {"resumed", s.handshakes_resumed},
                     {"early_data_accepted", s.early_data_accepted},
                     {"early_data_bytes", s.early_data_bytes},
                     {"per_second", s.handshakes_per_second()}};
  j["requests"] = {
      {"total", s.requests}, {"not_found", s.not_found}, {"closed_by_client", s.closed_by_client}};
  j["bytes"] = {{"sent", s.bytes_sent}, {"received", s.bytes_received}};
  nlohmann::json errors = nlohmann::json::object();
  uint64_t total = 0;
  for (const auto& [name, count] : ErrorCounts(s)) {
    errors[std::string(name)] = count;
    total += count;
  }
  j["errors"] = {{"total", total}, {"by_class", errors}};
  j["cpu"] = {{"process_user_s", Secs(s.process_cpu.user_ns)},
              {"process_sys_s", Secs(s.process_cpu.sys_ns)},
              {"server_threads_s", Secs(s.worker_cpu.total_ns())}};
  if (s.handshakes() > 0) {
    j["cpu_us_per_handshake"] = s.cpu_us_per_handshake();
    j["process_cpu_us_per_handshake"] = s.process_cpu_us_per_handshake();
  } else {
    j["cpu_us_per_handshake"] = nullptr;
    j["process_cpu_us_per_handshake"] = nullptr;
  }
  nlohmann::json threads = nlohmann::json::array();
  for (const WorkerStats& w : s.workers) {
    threads.push_back({{"accepted", w.accepted},
                       {"handshakes", w.handshakes},
                       {"requests", w.requests},
                       {"cpu_s", Secs(w.cpu.total_ns())}});
  }
  j["threads"] = threads;
  j["last_tls_error"] = s.last_tls_error;
  j["last_h2_error"] = s.last_h2_error;
  j["loop_error"] = s.loop_error;
  return j;
}

Status WriteServerStatsJson(const ServerStats& stats, const std::string& path) {
  return WriteFileAtomically(path, ServerStatsJson(stats).dump(2) + "\n", kPublicFile,
                             "--stats-json");
}

}  // namespace pqc
