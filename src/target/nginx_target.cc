// nginx_target — real nginx as the target, so that results can be compared with a deployed
// server and not only with the tool's own. The child is nginx's master (daemon off,
// master_process on): SIGTERM is its fast shutdown, and wait4 on it returns the CPU of the
// master and of every worker it reaped. The lifecycle is spawned_server's.
#include <filesystem>

#include "target/nginx_config.h"
#include "target/spawned_server.h"

namespace pqc::target {
namespace {

class NginxTarget final : public SpawnedServerTarget {
 public:
  explicit NginxTarget(std::string exe) : SpawnedServerTarget("nginx", std::move(exe)) {}

 private:
  Result<ServerLaunch> Prepare(const ServerConfig& c, const SocketAddress& listen,
                               const std::string& work_dir) override {
    NginxFiles f = NginxFilesIn(work_dir);
    if (Status s = WriteNginxFiles(c, listen, f); !s) return s.error();
    std::filesystem::remove(f.error_log);
    ServerLaunch l;
    // -p: relative paths resolve in the trial's directory; -e: the error log from the very
    // start (before the configuration is read, nginx would open its build-time default).
    l.argv = {exe(), "-p", f.temp, "-e", f.error_log, "-c", f.conf};
    l.env = OpensslEnvironment(c, OpensslConfigText(c).empty() ? "" : f.openssl_conf);
    l.config_path = f.conf;
    l.log_path = f.error_log;
    return l;
  }
};

}  // namespace

std::unique_ptr<Target> MakeNginxTarget(std::string nginx_exe) {
  return std::make_unique<NginxTarget>(std::move(nginx_exe));
}

}  // namespace pqc::target
