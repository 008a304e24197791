// haproxy_target — real HAProxy as the target: the TLS terminator many deployments put in
// front of their servers, so that a result can say what hybrid key exchange and ML-DSA cost
// there. The child is HAProxy itself in the foreground (-db, no master process): its threads
// are one process, so wait4's rusage is all of its CPU; SIGTERM is its immediate stop. The
// lifecycle is spawned_server's.
#include "target/haproxy_config.h"
#include "target/spawned_server.h"

namespace pqc::target {
namespace {

class HaproxyTarget final : public SpawnedServerTarget {
 public:
  explicit HaproxyTarget(std::string exe) : SpawnedServerTarget("haproxy", std::move(exe)) {}

 private:
  Result<ServerLaunch> Prepare(const ServerConfig& c, const SocketAddress& listen,
                               const std::string& work_dir) override {
    HaproxyFiles f = HaproxyFilesIn(work_dir);
    if (Status s = WriteHaproxyFiles(c, listen, f); !s) return s.error();
    ServerLaunch l;
    // -db: foreground, no daemon; -f: the arm's configuration. It logs to its output.
    l.argv = {exe(), "-db", "-f", f.conf};
    l.env = OpensslEnvironment(c, OpensslConfigText(c).empty() ? "" : f.openssl_conf);
    l.config_path = f.conf;
    return l;
  }
};

}  // namespace

std::unique_ptr<Target> MakeHaproxyTarget(std::string haproxy_exe) {
  return std::make_unique<HaproxyTarget>(std::move(haproxy_exe));
}

}  // namespace pqc::target
