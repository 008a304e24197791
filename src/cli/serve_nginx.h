// serve_nginx — `pqc-bench serve --nginx`: nginx in the foreground with serve's flags, for a
// side-by-side look at the embedded server and a deployed one outside a scenario. The flags
// are wired in serve.cc; this runs the nginx target driver until SIGINT/SIGTERM.
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "core/stop_signals.h"
#include "target/target.h"

namespace pqc::cli {

struct NginxServeOptions {
  std::string nginx_exe;
  std::string cert;  // chain spec made on the fly when cert_file is empty
  std::string cert_file, key_file;
  std::string work_dir;  // empty = a new directory under $TMPDIR (kept: it holds the logs)
  std::string listen;    // HOST:PORT (port 0 = a free one)
  std::string netns_path;
  std::string write_ca;         // copy the made chain's root certificate here (with cert only)
  target::ServerConfig config;  // groups, tickets, cache, threads, ciphersuites, payload sizes
};

// DefaultNginxExe: $PQC_NGINX, else the nginx the build was configured with ("" if neither).
std::string DefaultNginxExe();

// ServeNginx: starts nginx, prints "listening on ADDR (...)", waits for a stop (`signals`,
// blocked by the caller) or the deadline (0 = none), stops it and prints its CPU.
int ServeNginx(NginxServeOptions options, StopSignals& signals, int64_t deadline);

}  // namespace pqc::cli
