// spawned_server — the lifecycle that nginx and HAProxy share as targets: a server binary the
// tool configures through files it writes per arm and starts as its own child. Neither can
// report an ephemeral port, so a free one is picked and the start retried when another process
// takes it first; readiness is a connect polled on the address; Stop is SIGTERM, a bounded
// wait, then SIGKILL; the CPU is the child's own rusage (wait4: its threads, and every worker
// process it reaped). A driver supplies only its files and its command line (Prepare).
#pragma once

#include <string>
#include <vector>

#include "core/child_process.h"
#include "target/target.h"

namespace pqc::target {

// ServerLaunch: what one arm's server runs, once its files are written.
struct ServerLaunch {
  std::vector<std::string> argv;  // argv[0] the server's executable
  std::vector<std::string> env;   // "NAME=value" added to the environment
  std::string config_path;        // the configuration file, named in errors and stats
  std::string log_path;           // the server's own log ("" = its output only)
};

class SpawnedServerTarget : public Target {
 public:
  Result<SocketAddress> Start(const ServerConfig& config, const Placement& placement,
                              const std::string& work_dir) final;
  Result<TargetStats> Stop() final;
  std::string_view name() const final { return name_; }
  int exit_fd() const final { return child_.exit_fd(); }

 protected:
  SpawnedServerTarget(std::string name, std::string exe)
      : name_(std::move(name)), exe_(std::move(exe)) {}
  const std::string& exe() const { return exe_; }
  // Prepare: writes the arm's files under work_dir for a server listening on `listen`,
  // removing any log of an earlier start, and says what to run.
  virtual Result<ServerLaunch> Prepare(const ServerConfig& config, const SocketAddress& listen,
                                       const std::string& work_dir) = 0;

 private:
  Status Launch(const ServerLaunch& launch, const SocketAddress& addr,
                const std::string& netns_path, const std::vector<unsigned>& cpus);
  // StartLog: what the server said at start (its log, else its output), for errors.
  std::string StartLog(size_t max_bytes) const;

  std::string name_, exe_;
  ChildProcess child_;
  ServerLaunch launch_;
  std::string out_path_;
};

// OpensslEnvironment: the environment that gives a child server the arm's providers: an
// openssl.cnf it reads at start (OPENSSL_CONF, when `openssl_conf` is not empty) and the
// directory of their modules (OPENSSL_MODULES).
std::vector<std::string> OpensslEnvironment(const ServerConfig& config,
                                            const std::string& openssl_conf);

}  // namespace pqc::target
