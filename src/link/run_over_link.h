// run_over_link — what `pqc-bench link` does, as a library call: the link up, the embedded
// server (this binary's `serve`) started in the server namespace, the user's command run in
// the client namespace with the target's address in its environment, everything torn down
// after it exits or on SIGINT/SIGTERM. Kept out of src/cli so that it is testable and the CLI
// file stays flag wiring.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "link/link_profile.h"
#include "link/mover.h"

namespace pqc::link {

struct LinkRunOptions {
  LinkProfile profile;
  bool start_server = true;
  std::string server_exe = "/proc/self/exe";  // the binary whose `serve` is started
  std::vector<std::string> server_args;       // extra `serve` flags
  uint16_t port = 8443;                       // serve listens on 198.18.0.1:<port>
  std::vector<std::string> command;           // run in the client namespace
  int mover_threads = 1;                      // see Mover::Start
};

struct LinkRunResult {
  int exit_code = 0;  // the command's (128 + signal if it was killed)
  bool interrupted = false;
  MoverStats stats;
};

// RunOverLink: the command sees PQC_TARGET=198.18.0.1:<port>, PQC_SERVER_IP, PQC_CLIENT_IP,
// PQC_SERVER_NETNS and PQC_CLIENT_NETNS (the namespaces' /run/netns paths) and, when the server
// wrote its root certificate (always, unless server_args give
// --cert-file), PQC_CA=<file>. Blocks SIGINT, SIGTERM and SIGCHLD in the calling thread
// (call it before starting other threads): SIGINT/SIGTERM are forwarded to the command, which
// gets 5 s before SIGKILL. `log` receives the server's output and progress lines.
Result<LinkRunResult> RunOverLink(const LinkRunOptions& options, std::FILE* log);

}  // namespace pqc::link
