#include "target/spawned_server.h"

#include <fmt/format.h>

#include "core/paths.h"
#include "net/socket.h"
#include "target/readiness.h"

namespace pqc::target {
namespace {

constexpr int kPortAttempts = 5;

}  // namespace

Result<SocketAddress> SpawnedServerTarget::Start(const ServerConfig& c, const Placement& p,
                                                 const std::string& work_dir) {
  if (child_.owned() && !child_.exit_info()) {
    return MakeError(ErrorKind::kUsage, fmt::format("{} target: already started", name_));
  }
  if (Status s = CheckReadable(name_ + " executable", exe_); !s) return s.error();
  if (Status s = CheckServerCerts(c); !s) return s.error();
  out_path_ = work_dir + "/" + name_ + ".out";
  // Bounded: a port taken between our probe and the server's bind is retried a few times.
  for (int attempt = 1;; ++attempt) {
    SocketAddress addr = p.listen;
    if (p.listen.port() == 0) {
      auto free_port = PickFreePort(p.listen, p.netns_path);
      if (!free_port) return free_port.error();
      addr = p.listen.WithPort(*free_port);
    }
    if (p.listen.port() != 0) {
      // A port the user gave (serve --nginx --listen): if something else listens there, the
      // server's bind fails, but the readiness check below is answered by that other server
      // and this one was reported up. Probe the port first, as the embedded server does
      // (server/listeners.cc), so that "address in use" is the answer.
      Status free = InNetns(p.netns_path, [&]() -> Status {
        auto probe = ListenTcp(addr, 1, /*reuse_port=*/false);
        if (!probe) return probe.error();
        return {};
      });
      if (!free) return free.error();
    }
    auto launch = Prepare(c, addr, work_dir);
    if (!launch) return launch.error();
    launch_ = std::move(*launch);
    auto started = Launch(launch_, addr, p.netns_path, c.cpus);
    if (started) return addr;
    const bool port_taken = StartLog(100'000).find("Address already in use") != std::string::npos;
    if (!port_taken || p.listen.port() != 0 || attempt == kPortAttempts) return started.error();
  }
}

Result<TargetStats> SpawnedServerTarget::Stop() {
  if (!child_.owned()) {
    return MakeError(ErrorKind::kUsage, fmt::format("{} target: not started", name_));
  }
  auto e = child_.Terminate(kStopGrace);
  if (!e) return e.error();
  TargetStats st = StatsOfExit(*e, launch_.log_path.empty() ? out_path_ : launch_.log_path, name_);
  st.details = {{"config", launch_.config_path},
                {"output", out_path_},
                {"exit", st.exit},
                {"killed", e->killed}};
  return st;
}

Status SpawnedServerTarget::Launch(const ServerLaunch& l, const SocketAddress& addr,
                                   const std::string& netns_path,
                                   const std::vector<unsigned>& cpus) {
  SpawnOptions o;
  o.cpus = cpus;
  o.argv = l.argv;
  o.env = l.env;
  o.output_path = out_path_;
  o.netns_path = netns_path;
  o.process_group = true;  // nginx's workers must not outlive a master killed under them
  auto child = ChildProcess::Spawn(o);
  if (!child) return child.error();
  child_ = std::move(*child);
  auto exited = [this]() -> Status {
    if (!child_.Exited()) return {};
    return MakeError(
        ErrorKind::kConfig,
        fmt::format("{} stopped at start ({}); configuration {}:\n{}", name_,
                    child_.exit_info()->Describe(), launch_.config_path, StartLog(2000)));
  };
  return WaitUntilAccepting(addr, netns_path, MonotonicNow() + kReadyTimeout, exited);
}

std::string SpawnedServerTarget::StartLog(size_t max_bytes) const {
  std::string log = launch_.log_path.empty() ? "" : ReadTail(launch_.log_path, max_bytes);
  if (log.empty()) log = ReadTail(out_path_, max_bytes);
  return log;
}

std::vector<std::string> OpensslEnvironment(const ServerConfig& c,
                                            const std::string& openssl_conf) {
  std::vector<std::string> env;
  // OpenSSL reads OPENSSL_CONF when the server initialises it, before its own configuration.
  if (!openssl_conf.empty()) env.push_back("OPENSSL_CONF=" + openssl_conf);
  if (!c.provider_path.empty()) env.push_back("OPENSSL_MODULES=" + AbsolutePath(c.provider_path));
  return env;
}

}  // namespace pqc::target
