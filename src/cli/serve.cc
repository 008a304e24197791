// serve — `pqc-bench serve`: the embedded HTTPS target as a process, for scripts, nginx
// comparisons and clients other than pqc-bench. Flag wiring, the signal wait and the final
// summary; the server itself is src/server.
#include <fmt/core.h>
#include <pthread.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fstream>

#include "cli/command.h"
#include "cli/serve_nginx.h"
#include "core/split.h"
#include "core/stop_signals.h"
#include "core/units.h"
#include "net/address.h"
#include "server/embedded_server.h"
#include "server/server_stats_json.h"
#include "tls/cert_chain.h"

namespace pqc::cli {
namespace {

constexpr const char* kDefaultGroups =
    "X25519MLKEM768:X25519:SecP256r1MLKEM768:secp256r1:SecP384r1MLKEM1024:MLKEM768:MLKEM512:"
    "MLKEM1024";
constexpr Nanos kSecond = 1'000'000'000;

// ParseBoundedDuration: a --flag duration in (0, max].
Result<Nanos> ParseBoundedDuration(const char* flag, const std::string& text, Nanos max) {
  auto d = ParseDuration(text);
  if (!d) return MakeError(ErrorKind::kUsage, fmt::format("{}: {}", flag, d.error().message));
  if (*d <= 0 || *d > max) {
    return MakeError(ErrorKind::kUsage, fmt::format("{} {}: must be above 0 and at most {} s", flag,
                                                    text, max / kSecond));
  }
  return *d;
}

// Explain: OpenSSL's refusal of an SLH-DSA certificate is a measured fact, not a bug.
Error Explain(Error e) {
  if (e.message.find("unknown certificate type") != std::string::npos) {
    e.kind = ErrorKind::kUnsupported;
    e.message +=
        "\n  SLH-DSA keys and certificates work (pqc-bench certs makes and verifies them), but "
        "OpenSSL 3.5 cannot use them in TLS; serve an ml-dsa-* chain for a post-quantum "
        "certificate";
  }
  return e;
}

Status WriteTrustAnchor(const CertChain& chain, const std::string& path) {
  auto pem = CertPem(chain.root().cert.get());
  if (!pem) return pem.error();
  std::ofstream out(path, std::ios::trunc);
  if (!(out << *pem) || !out.flush()) {
    return MakeError(ErrorKind::kIo, fmt::format("--write-ca: cannot write {}", path));
  }
  return {};
}

void PrintSummary(const ServerStats& s) {
  const double secs = static_cast<double>(s.wall_ns) / 1e9;
  fmt::print("stopped after {:.2f} s\n", secs);
  fmt::print("connections   {} accepted, {} refused\n", s.accepted, s.refused);
  fmt::print("handshakes    {} ({} full, {} resumed), {:.1f}/s\n", s.handshakes(),
             s.handshakes_full, s.handshakes_resumed, s.handshakes_per_second());
  fmt::print("requests      {} ({} not found), {} bytes sent, {} received\n", s.requests,
             s.not_found, s.bytes_sent, s.bytes_received);
  std::string errors;
  for (const auto& [name, count] : ErrorCounts(s)) {
    if (count > 0) errors += fmt::format("{}{} {}", errors.empty() ? "" : ", ", name, count);
  }
  fmt::print("errors        {}\n", errors.empty() ? "none" : errors);
  if (!s.last_tls_error.empty()) fmt::print("last TLS error: {}\n", s.last_tls_error);
  fmt::print("CPU           user {:.3f} s, sys {:.3f} s (process); server threads {:.3f} s\n",
             static_cast<double>(s.process_cpu.user_ns) / 1e9,
             static_cast<double>(s.process_cpu.sys_ns) / 1e9,
             static_cast<double>(s.worker_cpu.total_ns()) / 1e9);
  if (s.handshakes() > 0) {
    fmt::print("CPU/handshake {:.1f} us (server threads), {:.1f} us (process)\n",
               s.cpu_us_per_handshake(), s.process_cpu_us_per_handshake());
  }
  if (s.workers.size() > 1) {
    for (size_t i = 0; i < s.workers.size(); ++i) {
      const WorkerStats& w = s.workers[i];
      fmt::print("  thread {}: {} handshakes, {} requests, CPU {:.3f} s\n", i, w.handshakes,
                 w.requests, static_cast<double>(w.cpu.total_ns()) / 1e9);
    }
  }
  if (!s.loop_error.empty()) fmt::print("event loop failed: {}\n", s.loop_error);
}

}  // namespace

int ServeMain(int argc, char** argv) {
  CLI::App app{
      "The embedded HTTPS target: TLS 1.3, HTTP/1.1 keep-alive; / answers OK, "
      "/payload/<size> that many bytes. Stops on SIGINT/SIGTERM or after --duration.",
      "pqc-bench serve"};
  std::string listen = "127.0.0.1:8443", cert = "ecdsa-p256", cert_file, key_file,
              groups = kDefaultGroups, tickets = "on", cache = "on", ciphersuites, write_ca,
              duration, handshake_timeout = "10s", idle_timeout = "60s";
  std::string stats_json, nginx_exe = DefaultNginxExe(), work_dir,
                          payload_sizes = "100B,1K,10K,100K,1M";
  bool use_nginx = false;
  int threads = 1;
  size_t max_connections = 20'000;
  app.add_option("--listen", listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  auto* cert_opt =
      app.add_option("--cert", cert, "certificate chain to make, leaf first (ml-dsa-65/ml-dsa-87)")
          ->capture_default_str();
  auto* cert_file_opt =
      app.add_option("--cert-file", cert_file, "PEM chain file (leaf first) instead of --cert");
  auto* key_file_opt = app.add_option("--key-file", key_file, "PEM private key of --cert-file");
  cert_file_opt->needs(key_file_opt)->excludes(cert_opt);
  key_file_opt->needs(cert_file_opt);
  app.add_option("--groups", groups,
                 "server preference, OpenSSL syntax (':' between groups, '/' between "
                 "preference tuples)")
      ->capture_default_str();
  app.add_option("--tickets", tickets, "issue session tickets")
      ->capture_default_str()
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--cache", cache, "server-side session cache")
      ->capture_default_str()
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--threads", threads, "event-loop threads (one SO_REUSEPORT listener each)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--ciphersuites", ciphersuites, "TLS 1.3 cipher suites (OpenSSL names)");
  app.add_option("--write-ca", write_ca, "write the chain's root certificate (PEM) here")
      ->excludes(cert_file_opt);
  app.add_option("--duration", duration, "stop by itself after this long (e.g. 30s; at most 24h)");
  app.add_option("--handshake-timeout", handshake_timeout, "accept to handshake done, at most")
      ->capture_default_str();
  app.add_option("--idle-timeout", idle_timeout, "close a connection idle for this long")
      ->capture_default_str();
  app.add_option("--max-connections", max_connections, "open connections per thread, at most")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}));
  app.add_option("--stats-json", stats_json, "write the final server stats as JSON here");
  auto* nginx_opt = app.add_flag("--nginx", use_nginx,
                                 "run nginx with these flags instead of the embedded server");
  app.add_option("--nginx-exe", nginx_exe, "nginx binary (default: $PQC_NGINX, else the build's)")
      ->needs(nginx_opt);
  app.add_option("--work-dir", work_dir,
                 "nginx: directory for its configuration, logs and payload files (default: new "
                 "one under $TMPDIR)")
      ->needs(nginx_opt);
  app.add_option("--payload-sizes", payload_sizes, "nginx: /payload/<size> files to serve")
      ->capture_default_str()
      ->needs(nginx_opt);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (use_nginx && !stats_json.empty()) {
    return ReportError("serve", MakeError(ErrorKind::kUsage,
                                          "--stats-json: the embedded server only (nginx keeps "
                                          "no handshake counts)"));
  }

  ServerOptions options;
  auto addr = ParseAddress(listen);
  if (!addr) return ReportError("serve", addr.error());
  options.listen = *addr;
  options.threads = threads;
  options.max_connections_per_thread = max_connections;
  options.tls.groups = groups;
  options.tls.ciphersuites = ciphersuites;
  options.tls.tickets = tickets == "on";
  options.tls.session_cache = cache == "on";
  for (auto [flag, text, out] :
       {std::tuple{"--handshake-timeout", &handshake_timeout, &options.handshake_timeout},
        std::tuple{"--idle-timeout", &idle_timeout, &options.idle_timeout}}) {
    auto d = ParseBoundedDuration(flag, *text, 3600 * kSecond);
    if (!d) return ReportError("serve", d.error());
    *out = *d;
  }
  Nanos run_for = 0;
  if (!duration.empty()) {
    auto d = ParseBoundedDuration("--duration", duration, 24 * 3600 * kSecond);
    if (!d) return ReportError("serve", d.error());
    run_for = *d;
  }

  const Nanos deadline_from_start = run_for;
  if (use_nginx) {
    NginxServeOptions n;
    n.nginx_exe = nginx_exe;
    n.cert = cert;
    n.cert_file = cert_file;
    n.key_file = key_file;
    n.work_dir = work_dir;
    n.listen = listen;
    n.write_ca = write_ca;
    n.config.groups = groups;
    n.config.tickets = options.tls.tickets;
    n.config.session_cache = options.tls.session_cache;
    n.config.threads = static_cast<unsigned>(threads);
    n.config.ciphersuites = ciphersuites;
    for (std::string_view item : Split(payload_sizes, ",")) {
      auto size = ParseSize(item);
      if (!size)
        return ReportError(
            "serve", MakeError(ErrorKind::kUsage, "--payload-sizes: " + size.error().message));
      n.config.payload_sizes.push_back(*size);
    }
    StopSignals signals;
    return ServeNginx(std::move(n), signals,
                      deadline_from_start > 0 ? MonotonicNow() + deadline_from_start : 0);
  }

  std::optional<CertChain> chain;
  std::string cert_name = cert;
  if (cert_file.empty()) {
    auto spec = ParseChainSpec(cert);
    if (!spec) return ReportError("serve", spec.error());
    auto made = MakeChain(*spec);
    if (!made) return ReportError("serve", made.error());
    chain = std::move(*made);
    options.chain = &*chain;
  } else {
    options.cert_file = cert_file;
    options.key_file = key_file;
    cert_name = cert_file;
  }

  // Blocked before any server thread exists, so that every thread inherits the mask and the
  // signals wait for sigwait below instead of killing the process mid-run.
  StopSignals signals;

  if (!write_ca.empty()) {
    if (Status s = WriteTrustAnchor(*chain, write_ca); !s) return ReportError("serve", s.error());
  }
  auto server = EmbeddedServer::Start(options);
  if (!server) return ReportError("serve", Explain(server.error()));
  fmt::print("listening on {} (threads {}, cert {}, groups {})\n", (*server)->address().ToString(),
             threads, cert_name, groups);
  std::fflush(stdout);

  const Nanos deadline = run_for > 0 ? MonotonicNow() + run_for : 0;
  const int sig = signals.WaitUntil(deadline);
  (*server)->Stop();
  ServerStats stats = (*server)->Wait();
  if (sig != 0) fmt::print("{} received\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  PrintSummary(stats);
  if (!stats_json.empty()) {
    if (Status s = WriteServerStatsJson(stats, stats_json); !s)
      return ReportError("serve", s.error());
  }
  return stats.loop_error.empty() ? kExitOk : kExitFailure;
}

}  // namespace pqc::cli
