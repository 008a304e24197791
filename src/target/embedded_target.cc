// embedded_target — the embedded server as a separate process (`pqc-bench serve`), so that its
// CPU is the kernel's accounting of that process alone, and a trial's server starts from a
// fresh state exactly like nginx does. The port comes from serve's own "listening on" line
// (it binds port 0), and its counts from the JSON it writes when it stops.
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/child_process.h"
#include "core/json_fields.h"
#include "core/paths.h"
#include "target/readiness.h"
#include "target/target.h"

namespace pqc::target {
namespace {

constexpr std::string_view kListening = "listening on ";

// ServedCounts: what the target reads of serve's stats file, server/'s ServerStats document
// (a layer target/ does not use): its handshakes, full and resumed. The rest is stored as it
// is (TargetStats::details), never read back.
struct ServedCounts {
  std::optional<uint64_t> handshakes;  // none: a file without the count
};

template <class R, class V>
requires json_fields::Of<R, ServedCounts>
void Fields(R& r, V& v) {
  v.Group("handshakes", [&](auto& g) { g("total", r.handshakes); });
}

// ListeningAddress: the address on serve's first line, once it is there.
std::optional<SocketAddress> ListeningAddress(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with(kListening)) continue;
    std::string_view rest = std::string_view(line).substr(kListening.size());
    auto addr = ParseAddress(rest.substr(0, rest.find(' ')));
    if (addr) return *addr;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> EmbeddedServeArgv(const std::string& exe, const ServerConfig& c,
                                           const Placement& p) {
  std::vector<std::string> argv = {
      exe, "serve", "--listen", p.listen.ToString(), "--tickets", c.tickets ? "on" : "off",
      "--cache", c.session_cache ? "on" : "off", "--early-data", c.early_data ? "on" : "off",
      "--threads", std::to_string(c.threads),
      // Explicit: serve's `auto` would turn both on for an emulated link's 198.18.0.1.
      "--quic-retry", c.quic_retry ? "on" : "off", "--max-per-source", "0"};
  for (const std::string& name : c.providers) argv.insert(argv.end(), {"--provider", name});
  if (!c.provider_path.empty()) argv.insert(argv.end(), {"--provider-path", c.provider_path});
  if (!c.property_query.empty()) argv.insert(argv.end(), {"--property-query", c.property_query});
  for (const ServerCert& cert : c.certs) {
    argv.insert(argv.end(), {"--cert-file", AbsolutePath(cert.chain_file), "--key-file",
                             AbsolutePath(cert.key_file)});
  }
  if (!c.groups.empty()) argv.insert(argv.end(), {"--groups", c.groups});
  if (c.Serves(Protocol::kH2) || c.Serves(Protocol::kH3)) {
    std::string list;
    for (const ProtocolInfo& info : Protocols()) {
      if (c.Serves(info.protocol)) list += fmt::format("{}{}", list.empty() ? "" : ",", info.name);
    }
    argv.insert(argv.end(), {"--protocol", list});
  }
  if (!c.ciphersuites.empty()) argv.insert(argv.end(), {"--ciphersuites", c.ciphersuites});
  return argv;
}

namespace {

class EmbeddedTarget final : public Target {
 public:
  explicit EmbeddedTarget(std::string exe) : exe_(std::move(exe)) {}

  Result<SocketAddress> Start(const ServerConfig& c, const Placement& p,
                              const std::string& work_dir) override {
    if (child_.owned() && !child_.exit_info()) {
      return MakeError(ErrorKind::kUsage, "embedded target: already started");
    }
    if (Status s = CheckServerCerts(c); !s) return s.error();
    log_path_ = work_dir + "/serve.log";
    stats_path_ = AbsolutePath(work_dir + "/serve-stats.json");
    std::remove(stats_path_.c_str());
    SpawnOptions o;
    o.argv = EmbeddedServeArgv(exe_, c, p);
    o.argv.insert(o.argv.end(), {"--stats-json", stats_path_});
    clients_path_.clear();
    if (c.record_clients) {
      clients_path_ = AbsolutePath(work_dir + "/clients.sqlite");
      o.argv.insert(o.argv.end(), {"--clients", clients_path_});
    }
    o.argv.insert(o.argv.end(), c.serve_args.begin(), c.serve_args.end());
    o.output_path = log_path_;
    o.netns_path = p.netns_path;
    o.process_group = true;
    o.cpus = c.cpus;
    auto child = ChildProcess::Spawn(o);
    if (!child) return child.error();
    child_ = std::move(*child);

    auto exited = [this]() -> Status {
      if (!child_.Exited()) return {};
      return MakeError(ErrorKind::kConfig,
                       fmt::format("embedded target ({} serve) stopped at start ({}):\n{}", exe_,
                                   child_.exit_info()->Describe(), ReadTail(log_path_)));
    };
    const Nanos deadline = MonotonicNow() + kReadyTimeout;
    // Bounded by the deadline: the log is read every 10 ms until the line appears.
    std::optional<SocketAddress> addr;
    while (!(addr = ListeningAddress(log_path_))) {
      if (Status s = exited(); !s) return s.error();
      if (MonotonicNow() >= deadline) {
        (void)child_.Terminate(kStopGrace);  // the missing line is the error to report
        return MakeError(ErrorKind::kSystem,
                         fmt::format("embedded target: no 'listening on' line in {} after {} s",
                                     log_path_, kReadyTimeout / 1'000'000'000));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (Status s = WaitUntilAccepting(*addr, p.netns_path, deadline, exited); !s) {
      return s.error();
    }
    return *addr;
  }

  Result<TargetStats> Stop() override {
    if (!child_.owned()) return MakeError(ErrorKind::kUsage, "embedded target: not started");
    auto e = child_.Terminate(kStopGrace);
    if (!e) return e.error();
    TargetStats st = StatsOfExit(*e, log_path_, "the embedded server");
    if (!st.died.empty()) return st;  // it wrote no stats: what it served is already invalid
    std::ifstream in(stats_path_);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      return MakeError(
          ErrorKind::kSystem,
          fmt::format("embedded target ended ({}{}) without its stats file {}:\n{}", e->Describe(),
                      e->killed ? ", after SIGKILL" : "", stats_path_, ReadTail(log_path_)));
    }
    ServedCounts counts;
    if (Status s = json_fields::Read(j, counts, "embedded target's stats file " + stats_path_);
        !s) {
      return s.error();
    }
    st.handshakes = counts.handshakes;
    st.details = std::move(j);
    st.details["exit"] = st.exit;
    if (!clients_path_.empty()) st.details["clients_file"] = clients_path_;
    return st;
  }

  std::string_view name() const override { return "embedded"; }
  int exit_fd() const override { return child_.exit_fd(); }

 private:
  std::string exe_;
  ChildProcess child_;
  std::string log_path_, stats_path_, clients_path_;
};

}  // namespace

std::unique_ptr<Target> MakeEmbeddedTarget(std::string pqc_bench_exe) {
  return std::make_unique<EmbeddedTarget>(std::move(pqc_bench_exe));
}

}  // namespace pqc::target
