// server_stats_json — ServerStats as JSON, written by `serve --stats-json` when it stops, so
// that a runner that started serve as a child process gets the server's own counts and CPU
// (the same fields PrintSummary shows) without parsing text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"
#include "server/server_stats.h"

namespace pqc {

// ServerStatsJson: {wall_s, connections{accepted, refused, ...}, handshakes{total, full,
// resumed}, requests{...}, bytes{sent, received}, errors{<class>: n, ...}, cpu{process_user_s,
// process_sys_s, server_threads_s}, cpu_us_per_handshake, process_cpu_us_per_handshake,
// threads[{handshakes, requests, cpu_s}], last_tls_error, loop_error}. Per-handshake CPU is
// null when there was no handshake.
nlohmann::json ServerStatsJson(const ServerStats& stats);

// WriteServerStatsJson: the JSON to `path` (replaced); the error names the path.
Status WriteServerStatsJson(const ServerStats& stats, const std::string& path);

}  // namespace pqc
