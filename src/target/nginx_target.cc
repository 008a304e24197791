// nginx_target — real nginx as the target, so that results can be compared with a deployed
// server and not only with the tool's own. The child is nginx's master (daemon off,
// master_process on): SIGTERM is its fast shutdown, and wait4 on it returns the CPU of the
// master and of every worker it reaped. nginx cannot report an ephemeral port, so the driver
// picks a free one and retries when another process takes it first.
#include <fmt/format.h>

#include <filesystem>

#include "core/child_process.h"
#include "core/paths.h"
#include "net/socket.h"
#include "target/nginx_config.h"
#include "target/readiness.h"
#include "target/target.h"

namespace pqc::target {
namespace {

constexpr int kPortAttempts = 5;

class NginxTarget final : public Target {
 public:
  explicit NginxTarget(std::string exe) : exe_(std::move(exe)) {}

  Result<SocketAddress> Start(const ServerConfig& c, const Placement& p,
                              const std::string& work_dir) override {
    if (child_.owned() && !child_.exit_info()) {
      return MakeError(ErrorKind::kUsage, "nginx target: already started");
    }
    if (Status s = CheckReadable("nginx executable", exe_); !s) return s.error();
    if (Status s = CheckServerCerts(c); !s) return s.error();
    files_ = NginxFilesIn(work_dir);
    out_path_ = work_dir + "/nginx.out";
    // Bounded: a port taken between our probe and nginx's bind is retried a few times.
    for (int attempt = 1;; ++attempt) {
      uint16_t port = p.port;
      if (port == 0) {
        auto free_port = PickFreePort(p.listen_host, p.netns_path);
        if (!free_port) return free_port.error();
        port = *free_port;
      }
      const std::string listen = HostPort(p.listen_host, port);
      auto addr = ParseAddress(listen);
      if (!addr) return addr.error();
      if (p.port != 0) {
        // A port the user gave (serve --nginx --listen): if something else listens there,
        // nginx's bind fails, but the readiness check below is answered by that other server
        // and nginx was reported up. Probe the port first, as the embedded server does
        // (server/listeners.cc), so that "address in use" is the answer.
        Status free = InNetns(p.netns_path, [&]() -> Status {
          auto probe = ListenTcp(*addr, 1, /*reuse_port=*/false);
          if (!probe) return probe.error();
          return {};
        });
        if (!free) return free.error();
      }
      if (Status s = WriteNginxFiles(c, listen, files_); !s) return s.error();
      std::filesystem::remove(files_.error_log);
      auto started = Launch(c, *addr, p.netns_path);
      if (started) return *addr;
      const bool port_taken =
          ReadTail(files_.error_log, 100'000).find("Address already in use") != std::string::npos;
      if (!port_taken || p.port != 0 || attempt == kPortAttempts) return started.error();
    }
  }

  Result<TargetStats> Stop() override {
    if (!child_.owned()) return MakeError(ErrorKind::kUsage, "nginx target: not started");
    auto e = child_.Terminate(kStopGrace);
    if (!e) return e.error();
    TargetStats st;
    st.cpu_user_s = e->cpu_user_s;
    st.cpu_sys_s = e->cpu_sys_s;
    st.wall_s = e->wall_s;
    st.log_path = files_.error_log;
    st.details = {{"config", files_.conf},
                  {"output", out_path_},
                  {"exit", e->Describe()},
                  {"killed", e->killed}};
    return st;
  }

  std::string_view name() const override { return "nginx"; }

 private:
  Status Launch(const ServerConfig& c, const SocketAddress& addr, const std::string& netns_path) {
    SpawnOptions o;
    // The arm's providers: OpenSSL reads OPENSSL_CONF when nginx initialises it.
    if (!OpensslConfigText(c).empty()) o.env.push_back("OPENSSL_CONF=" + files_.openssl_conf);
    if (!c.provider_path.empty())
      o.env.push_back("OPENSSL_MODULES=" + AbsolutePath(c.provider_path));
    // -p: relative paths resolve in the trial's directory; -e: the error log from the very
    // start (before the configuration is read, nginx would open its build-time default).
    o.argv = {exe_, "-p", files_.temp, "-e", files_.error_log, "-c", files_.conf};
    o.output_path = out_path_;
    o.netns_path = netns_path;
    auto child = ChildProcess::Spawn(o);
    if (!child) return child.error();
    child_ = std::move(*child);
    auto exited = [this]() -> Status {
      if (!child_.Exited()) return {};
      std::string log = ReadTail(files_.error_log);
      if (log.empty()) log = ReadTail(out_path_);
      return MakeError(ErrorKind::kConfig,
                       fmt::format("nginx stopped at start ({}); configuration {}:\n{}",
                                   child_.exit_info()->Describe(), files_.conf, log));
    };
    return WaitUntilAccepting(addr, netns_path, MonotonicNow() + kReadyTimeout, exited);
  }

  std::string exe_;
  ChildProcess child_;
  NginxFiles files_;
  std::string out_path_;
};

}  // namespace

std::unique_ptr<Target> MakeNginxTarget(std::string nginx_exe) {
  return std::make_unique<NginxTarget>(std::move(nginx_exe));
}

}  // namespace pqc::target
