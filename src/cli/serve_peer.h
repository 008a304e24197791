// serve_peer — `pqc-bench serve --nginx` / `--haproxy`: a real server in the foreground with
// serve's flags, for a side-by-side look at the embedded server and a deployed one outside a
// scenario. The flags are serve_flags.cc's, wired in serve.cc; this runs that server's target
// driver until SIGINT/SIGTERM.
#pragma once

#include <csignal>
#include <string>
#include <string_view>
#include <vector>

#include "core/stop_signals.h"
#include "target/target.h"
#include "tls/cert_chain.h"

namespace pqc::cli {

struct PeerServeOptions {
  target::TargetKind kind = target::TargetKind::kNginx;  // nginx or haproxy
  std::string exe;
  // The chains to serve (written into the work directory), or none when config.certs already
  // names the user's files; cert_names says which, for the "listening on" line.
  std::vector<CertChain> chains;
  std::string cert_names;
  std::string work_dir;  // empty = a new directory under $TMPDIR (kept: it holds the logs)
  SocketAddress listen;  // port 0 = a free one
  std::string netns_path;
  target::ServerConfig config;  // certs, groups, tickets, cache, threads, ciphersuites, payloads
};

// DefaultNginxExe: $PQC_NGINX, else the nginx the build was configured with if it has been
// built ("" otherwise: the main command's set-up builds no peers).
std::string DefaultNginxExe();
// DefaultHaproxyExe: $PQC_HAPROXY, else the HAProxy the build was configured with if built.
std::string DefaultHaproxyExe();
// MissingPeerHint: what to do when `server` (nginx, HAProxy) is wanted and none is known —
// the set-up command that builds it for this binary's OpenSSL, or the flag and variable.
std::string MissingPeerHint(std::string_view server, std::string_view flag, std::string_view env);

// ServePeer: starts the server, prints "listening on ADDR (...)", waits for a stop (`signals`,
// blocked by the caller) or the deadline (0 = none), stops it and prints its CPU.
int ServePeer(PeerServeOptions options, StopSignals& signals, int64_t deadline);

}  // namespace pqc::cli
