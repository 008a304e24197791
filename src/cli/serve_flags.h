// serve_flags — `pqc-bench serve`'s flags: declared in one place, and parsed once, where they
// are read, into the typed values the embedded server and the peers' drivers take (the
// protocols, the listen address); the checks between flags refuse a combination with its
// reason before anything starts.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/provider_flags.h"
#include "cli/serve_peer.h"
#include "cli/unit_flags.h"
#include "core/error.h"
#include "core/protocol.h"
#include "net/address.h"
#include "results/client_log.h"
#include "tls/algorithms.h"

namespace pqc::cli {

// ServeFlags: every flag of serve; `protocols` and `listen` are typed by ParseServeFlags.
struct ServeFlags {
  std::vector<Protocol> protocols;
  SocketAddress listen;
  std::string listen_text = "127.0.0.1:8443", protocol = "h1", groups = kDefaultServerGroups,
              tickets = "on", cache = "on", early_data = "off", quic_retry = "auto",
              max_per_source = "auto", ciphersuites, write_ca, stats_json, clients,
              nginx_exe = DefaultNginxExe(), haproxy_exe = DefaultHaproxyExe(), work_dir;
  std::vector<std::string> certs = {"ecdsa-p256"}, cert_files, key_files;
  Nanos duration = 0, handshake_timeout = 10 * kSecond, idle_timeout = 60 * kSecond;
  Nanos handshake_cpu = 0;
  std::vector<uint64_t> payload_sizes = {100, 1024, 10240, 102400, 1048576};
  bool use_nginx = false, use_haproxy = false, count_control = false;
  int threads = 1;
  size_t max_connections = 20'000;
  uint64_t clients_max = results::kDefaultMaxClientRows;
  ProviderFlags providers;

  bool peer() const { return use_nginx || use_haproxy; }
};

void AddServeFlags(CLI::App& app, ServeFlags& f);

// ParseServeFlags: after CLI11 has parsed `app`: the providers loaded, the typed values filled
// and the combinations no server serves refused.
Status ParseServeFlags(const CLI::App& app, ServeFlags& f);

// Serves: whether `protocols` (serve --protocol) holds `p`.
bool Serves(const std::vector<Protocol>& protocols, Protocol p);
// ServesTcp: a TCP listener, for h1 or h2 (one listener serves both: ALPN picks).
bool ServesTcp(const std::vector<Protocol>& protocols);
// QuicRetry: --quic-retry for the server at f.listen (auto: on beyond loopback).
bool QuicRetry(const ServeFlags& f);

}  // namespace pqc::cli
