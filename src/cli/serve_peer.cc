#include "cli/serve_peer.h"

#include <fmt/core.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "cli/command.h"
#include "core/clock.h"
#include "net/address.h"
#include "tls/cert_chain.h"
#include "tls/cert_files.h"

namespace pqc::cli {
namespace {

Result<std::string> MakeWorkDir(const std::string& wanted, std::string_view server) {
  if (!wanted.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(wanted, ec);
    if (ec) {
      return MakeError(ErrorKind::kIo, fmt::format("--work-dir {}: {}", wanted, ec.message()));
    }
    return std::filesystem::absolute(wanted).string();
  }
  std::string tmpl =
      (std::filesystem::temp_directory_path() / fmt::format("pqc-bench-{}-XXXXXX", server))
          .string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    return MakeError(ErrorKind::kIo, fmt::format("cannot create {}: {}", tmpl, strerror(errno)));
  }
  return tmpl;
}

// BuiltOrEmpty: the configured path of a peer the set-up may not have built yet.
[[maybe_unused]] std::string BuiltOrEmpty(const char* path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec) ? path : "";
}

}  // namespace

std::string DefaultNginxExe() {
  if (const char* env = getenv("PQC_NGINX"); env != nullptr && *env != '\0') return env;
#ifdef PQC_NGINX_DEFAULT
  return BuiltOrEmpty(PQC_NGINX_DEFAULT);
#else
  return "";
#endif
}

std::string MissingPeerHint(std::string_view server, std::string_view flag, std::string_view env) {
#ifdef PQC_PEERS_COMMAND
  return fmt::format(
      "{} is not built on this machine yet: `{}` builds nginx and HAProxy against this "
      "build's OpenSSL (about 2 minutes on 2 cores, once; as root only if it must install "
      "Debian packages), or pass {} PATH or set {}",
      server, PQC_PEERS_COMMAND, flag, env);
#else
  return fmt::format("no {} is known: pass {} PATH or set {} (scripts/setup.sh peers builds it)",
                     server, flag, env);
#endif
}

std::string DefaultHaproxyExe() {
  if (const char* env = getenv("PQC_HAPROXY"); env != nullptr && *env != '\0') return env;
#ifdef PQC_HAPROXY_DEFAULT
  return BuiltOrEmpty(PQC_HAPROXY_DEFAULT);
#else
  return "";
#endif
}

int ServePeer(PeerServeOptions o, StopSignals& signals, int64_t deadline) {
  const bool nginx = o.kind == target::TargetKind::kNginx;
  const std::string_view server = target::TargetKindName(o.kind);
  if (o.exe.empty()) {
    return ReportError(
        "serve",
        MakeError(
            ErrorKind::kUsage,
            nginx ? "--nginx: " + MissingPeerHint("nginx", "--nginx-exe", "PQC_NGINX")
                  : "--haproxy: " + MissingPeerHint("HAProxy", "--haproxy-exe", "PQC_HAPROXY")));
  }
  auto dir = MakeWorkDir(o.work_dir, server);
  if (!dir) return ReportError("serve", dir.error());
  for (size_t i = 0; i < o.chains.size(); ++i) {
    auto files = WriteChainFiles(o.chains[i], fmt::format("{}/cert/{}", *dir, i + 1));
    if (!files) return ReportError("serve", files.error());
    o.config.certs.push_back({files->chain_pem, files->leaf_key_pem});
  }
  target::Placement placement;
  placement.netns_path = o.netns_path;
  placement.listen = o.listen;
  auto peer = nginx ? target::MakeNginxTarget(o.exe) : target::MakeHaproxyTarget(o.exe);
  auto bound = peer->Start(o.config, placement, *dir);
  if (!bound) return ReportError("serve", bound.error());
  fmt::print("listening on {} ({}, {} {}, cert {}, groups {}, directory {})\n", bound->ToString(),
             server, nginx ? "workers" : "threads", o.config.threads, o.cert_names, o.config.groups,
             *dir);
  std::fflush(stdout);
  // Supervised: the server's death ends the wait at once, so that nothing says "listening"
  // while nothing listens.
  const int sig = signals.WaitUntil(deadline, peer->exit_fd());
  auto stats = peer->Stop();
  if (!stats) return ReportError("serve", stats.error());
  if (!stats->died.empty()) {
    return ReportError("serve", MakeError(ErrorKind::kSystem, stats->died));
  }
  if (sig > 0) fmt::print("{} received\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  fmt::print("stopped after {:.2f} s ({})\n", stats->wall_s, stats->exit);
  fmt::print("CPU           user {:.3f} s, sys {:.3f} s ({})\n", stats->cpu_user_s,
             stats->cpu_sys_s, nginx ? "nginx master and workers" : "haproxy, all threads");
  fmt::print("log           {}\n", stats->log_path);
  return kExitOk;
}

}  // namespace pqc::cli
