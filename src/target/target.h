// target — the server a trial measures, behind one interface so that the runner treats the
// embedded server, nginx and a server it does not control alike: start it with the arm's
// server configuration (ready to accept when Start returns), run the load, stop it and keep
// what the server itself says it cost (its own CPU accounting, never the client's).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/protocol.h"
#include "net/address.h"

namespace pqc::target {

enum class TargetKind { kEmbedded, kNginx, kHaproxy, kExternal };

// ParseTargetKind: "embedded" | "nginx" | "haproxy" | "external"; the error lists the valid
// names.
Result<TargetKind> ParseTargetKind(std::string_view text);
std::string_view TargetKindName(TargetKind kind);
// TargetKindsText: "embedded", "embedded, nginx" — a run's kinds as its facts store them.
std::string TargetKindsText(const std::vector<TargetKind>& kinds);

// ServerCert: a PEM chain file (leaf first, then intermediates) and its leaf's key.
struct ServerCert {
  std::string chain_file, key_file;
};

// ServerConfig: what one arm asks of the server.
struct ServerConfig {
  std::string groups;  // server group preference, OpenSSL syntax
  // The chains the server holds, made by the runner: one, or one per leaf key type (the server
  // picks by the client's signature_algorithms).
  std::vector<ServerCert> certs;
  bool tickets = true, session_cache = true;
  bool early_data =
      false;  // 0-RTT on the server's tickets (embedded --early-data, nginx ssl_early_data)
  bool record_clients = false;  // embedded only: serve --clients <work_dir>/clients.sqlite
  unsigned threads = 1;         // event-loop threads / nginx workers / HAProxy threads
  // protocols: what the server serves (core/protocol.h). HTTP/1.1 over TCP always: the TCP
  // listener is what readiness polls, and an h1 client may share the server. h2 adds ALPN h2
  // beside http/1.1 on it (nginx's `http2 on`, HAProxy's `alpn h2,http/1.1`); h3 adds HTTP/3
  // over QUIC on UDP, on the TCP port's number.
  std::vector<Protocol> protocols = {Protocol::kH1};
  bool quic_retry = false;   // h3: a Retry before every handshake (ArmSettings::quic_retry)
  std::string ciphersuites;  // empty = OpenSSL default
  std::vector<uint64_t>
      payload_sizes;  // /payload/<size> sizes the arm requests (nginx needs files)
  // OpenSSL providers the server loads, in order (empty: the default provider), where their
  // modules are ("" = the build's directory), the property query of its fetches, and the
  // FIPS module's configuration (fipsmodule.cnf) when "fips" is among them.
  std::vector<std::string> providers;
  std::string provider_path, property_query, fips_config;
  // serve_args: more flags of the embedded server's command line (a [builds.NAME]'s serve_args,
  // scenario/builds.h); the peers take none.
  std::vector<std::string> serve_args;
  // cpus: the CPUs the server's process (its threads and workers) may run on; empty = the
  // tool's own (the server_cpus setting).
  std::vector<unsigned> cpus;

  bool Serves(Protocol p) const {
    return p == Protocol::kH1 ||
           std::find(protocols.begin(), protocols.end(), p) != protocols.end();
  }
};

// CheckServerCerts: at least one chain, and each chain and key file readable (the error names
// the file), before a server is started with them.
Status CheckServerCerts(const ServerConfig& c);

// Placement: where the server runs.
struct Placement {
  std::string netns_path;  // empty = this namespace; else the child setns()es into it
  // listen: where it listens; port 0 = any free port (the target reports the one it got).
  SocketAddress listen = LoopbackAddress();
};

struct TargetStats {
  // The server process(es)' own accounting (wait4 rusage of the child including the workers
  // it reaped) — never the client's.
  double cpu_user_s = 0, cpu_sys_s = 0;
  double wall_s = 0;
  std::optional<uint64_t> handshakes;  // when the target counts them (embedded: yes)
  std::string log_path;                // stdout/stderr or nginx error log, kept with results
  // exit: how the server's process ended ("exited 0", "killed by SIGTERM"); "" when the tool
  // runs none (an external server). Also in `details`, which is stored, never read back.
  std::string exit;
  nlohmann::json
      details;  // what the server says of itself, stored as it is (embedded: ServerStats)
  // died: set when the server ended on its own before Stop asked it to (it crashed or was
  // killed): how it ended and the last lines of its log. The trial it served is invalid.
  std::string died;
};

class Target {
 public:
  virtual ~Target() = default;  // stops the target if still running (RAII)
  // Start: ready to accept connections when it returns (connect polled on the address, bounded
  // to kReadyTimeout). work_dir must exist; configuration, logs and stats files go there.
  virtual Result<SocketAddress> Start(const ServerConfig& config, const Placement& placement,
                                      const std::string& work_dir) = 0;
  // Stop: SIGTERM, bounded wait (kStopGrace), then SIGKILL; the stats of the run since Start.
  virtual Result<TargetStats> Stop() = 0;
  virtual std::string_view name() const = 0;
  // exit_fd: while started, a descriptor that becomes readable when the server's process ends
  // (its pidfd), so that a trial or `serve` notices a dead server at once; -1 when the tool
  // runs no process (an external target).
  virtual int exit_fd() const { return -1; }
};

inline constexpr int64_t kReadyTimeout = 15'000'000'000;  // Start gives up after 15 s
inline constexpr int64_t kStopGrace = 10'000'000'000;     // SIGKILL after 10 s

// EmbeddedServeArgv: the command line of `<exe> serve` for a server config at a placement (no
// --stats-json or --clients: the target adds its own) — the embedded target's, and the server
// `pqc-bench count` runs under callgrind.
std::vector<std::string> EmbeddedServeArgv(const std::string& exe, const ServerConfig& c,
                                           const Placement& p);

// MakeEmbeddedTarget: spawns `<pqc_bench_exe> serve ... --stats-json` and reads its
// "listening on ADDR" line.
std::unique_ptr<Target> MakeEmbeddedTarget(std::string pqc_bench_exe);
// MakeNginxTarget: nginx (built by scripts/setup.sh) with a configuration generated per arm.
std::unique_ptr<Target> MakeNginxTarget(std::string nginx_exe);
// MakeHaproxyTarget: HAProxy (built by scripts/setup.sh) with a configuration generated per arm.
std::unique_ptr<Target> MakeHaproxyTarget(std::string haproxy_exe);
// MakeExternalTarget: a server the tool does not control; Start returns `address` once it
// accepts connections; Stop has no stats.
std::unique_ptr<Target> MakeExternalTarget(SocketAddress address);

}  // namespace pqc::target
