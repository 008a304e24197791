#include "cli/serve_embedded.h"

#include <fmt/core.h>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string_view>

#include "cli/command.h"
#include "cli/serve_certs.h"
#include "cli/serve_count.h"
#include "cli/serve_quic.h"
#include "cli/serve_summary.h"
#include "core/stop_signals.h"
#include "server/embedded_server.h"
#include "server/server_stats_json.h"

namespace pqc::cli {
namespace {

// kExposedMaxPerSource: --max-per-source auto beyond loopback — far above what one browser or
// proxy holds, far below --max-connections' 20,000 per thread.
constexpr size_t kExposedMaxPerSource = 1000;

// ParseCount: a decimal count from 0 to 1,000,000, nothing else.
std::optional<size_t> ParseCount(std::string_view text) {
  size_t n = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc() || p != end || n > 1'000'000) return std::nullopt;
  return n;
}

// Servers: what `serve --protocol` started — the TCP server, the QUIC one, or both on one port
// number.
struct Servers {
  std::unique_ptr<EmbeddedServer> tcp;
  QuicSide quic;
  SocketAddress address;
};

Result<Servers> StartServers(const ServerOptions& options, const std::vector<Protocol>& protocols) {
  const bool h1 = ServesTcp(protocols);
  const bool h3 = Serves(protocols, Protocol::kH3);
  // Port 0 with both: the kernel's free TCP port may be taken on UDP; a few tries, each with
  // a new TCP port, before that is the error.
  const int tries = h1 && h3 && options.listen.port() == 0 ? 5 : 1;
  Error last{ErrorKind::kSystem, ""};
  for (int i = 0; i < tries; ++i) {
    Servers out;
    out.address = options.listen;
    if (h1) {
      auto tcp = EmbeddedServer::Start(options);
      if (!tcp) return tcp.error();
      out.tcp = std::move(*tcp);
      out.address = out.tcp->address();
    }
    if (!h3) return out;
    auto quic = StartQuicSide(options, out.address);
    if (quic) {
      out.quic = std::move(*quic);
      if (!h1) out.address = out.address.WithPort(out.quic.server->port());
      return out;
    }
    last = quic.error();
    if (out.tcp) {
      out.tcp->Stop();
      (void)out.tcp->Wait();
    }
  }
  last.message = fmt::format("HTTP/3 on UDP: {}", last.message);
  return last;
}

}  // namespace

int ServeEmbedded(const ServeFlags& f) {
  ServerOptions options;
  options.listen = f.listen;
  options.threads = f.threads;
  options.max_connections_per_thread = f.max_connections;
  options.quic_retry = QuicRetry(f);
  if (f.max_per_source == "auto") {
    options.max_connections_per_source = f.listen.IsLoopback() ? 0 : kExposedMaxPerSource;
  } else {
    auto n = ParseCount(f.max_per_source);
    if (!n) {
      return ReportError("serve", MakeError(ErrorKind::kUsage,
                                            fmt::format("--max-per-source {}: not a count (valid: "
                                                        "auto, 0 for no limit, or 1 to 1000000)",
                                                        f.max_per_source)));
    }
    options.max_connections_per_source = *n;
  }
  options.tls.groups = f.groups;
  options.tls.ciphersuites = f.ciphersuites;
  options.tls.tickets = f.tickets == "on";
  options.tls.session_cache = f.cache == "on";
  options.tls.max_early_data = f.early_data == "on" ? kEarlyDataBytes : 0;
  options.tls.h2 = Serves(f.protocols, Protocol::kH2);
  options.handshake_timeout = f.handshake_timeout;
  options.idle_timeout = f.idle_timeout;
  options.handshake_cpu = f.handshake_cpu;
  auto certs = MakeServerCerts(f);
  if (!certs) return ReportError("serve", certs.error());
  for (const CertChain& c : certs->chains) options.chains.push_back(&c);
  options.cert_files = certs->files;
  // Blocked before any server thread exists, so that every thread inherits the mask and the
  // signals wait for sigwait below instead of killing the process mid-run.
  StopSignals signals;
  std::unique_ptr<results::ClientLogWriter> clients;
  if (!f.clients.empty()) {
    auto w = results::ClientLogWriter::Open(f.clients, f.clients_max);
    if (!w) return ReportError("serve", w.error());
    clients = std::move(*w);
    options.clients = clients.get();
  }
  auto servers = StartServers(options, f.protocols);
  if (!servers) return ReportError("serve", ExplainServeError(servers.error()));
  fmt::print("listening on {} (threads {}, cert {}, groups {}, protocol {}{}{})\n",
             servers->address.ToString(), f.threads, certs->what, f.groups, f.protocol,
             servers->quic.server && options.tls.max_early_data > 0
                 ? "; no 0-RTT over h3: OpenSSL's QUIC has none"
                 : "",
             !servers->quic.server ? ""
             : options.quic_retry  ? "; QUIC Retry on: every address validated first"
                                   : "; QUIC Retry off (--quic-retry)");
  std::fflush(stdout);
  const Nanos deadline = f.duration > 0 ? MonotonicNow() + f.duration : 0;
  const int sig =
      f.count_control
          ? WaitWithCountControl(
                signals, deadline,
                [&] {
                  return (servers->tcp ? servers->tcp->OpenConnections() : 0) +
                         (servers->quic.server ? servers->quic.server->OpenConnections() : 0);
                })
          : signals.WaitUntil(deadline);
  ServerStats stats;
  if (servers->tcp) {
    servers->tcp->Stop();
    stats = servers->tcp->Wait();
  }
  if (servers->quic.server) {
    servers->quic.server->Stop();
    AddQuicStats(servers->quic.server->stats(), stats);
  }
  if (sig != 0) fmt::print("{} received\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  PrintServeSummary(stats);
  if (clients) {
    Status closed = clients->Close();
    fmt::print("clients       {} connections recorded in {}{}\n", clients->written(), f.clients,
               clients->dropped() > 0
                   ? fmt::format(" ({} dropped: over --clients-max or a writer backlog)",
                                 clients->dropped())
                   : "");
    if (!closed) return ReportError("serve", closed.error());
  }
  if (!f.stats_json.empty()) {
    if (Status s = WriteServerStatsJson(stats, f.stats_json); !s) {
      return ReportError("serve", s.error());
    }
  }
  return stats.loop_error.empty() ? kExitOk : kExitFailure;
}

}  // namespace pqc::cli
