// serve — `pqc-bench serve`: the embedded HTTPS target as a process, for scripts, nginx and
// HAProxy comparisons and clients other than pqc-bench. Flag wiring, the signal wait and the final
// summary; the server itself is src/server.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string_view>

#include "cli/command.h"
#include "cli/provider_flags.h"
#include "cli/serve_count.h"
#include "cli/serve_peer.h"
#include "cli/serve_quic.h"
#include "cli/unit_flags.h"
#include "core/file_output.h"
#include "core/instruction_window.h"
#include "core/paths.h"
#include "core/protocol.h"
#include "core/stop_signals.h"
#include "core/units.h"
#include "net/address.h"
#include "results/client_log.h"
#include "server/embedded_server.h"
#include "server/server_stats_json.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"

namespace pqc::cli {
namespace {

constexpr Nanos kSecond = 1'000'000'000;

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

// WriteTrustAnchors: every chain's root, one PEM file (a client that trusts it verifies
// whichever chain the server picks for it).
Status WriteTrustAnchors(const std::vector<CertChain>& chains, const std::string& path) {
  std::string text;
  for (const CertChain& chain : chains) {
    auto pem = CertPem(chain.root().cert.get());
    if (!pem) return pem.error();
    text += *pem;
  }
  return WriteFileAtomically(path, text, kPublicFile, "--write-ca");
}

// MakeChains: one fresh chain per --cert.
Result<std::vector<CertChain>> MakeChains(const std::vector<std::string>& specs) {
  std::vector<CertChain> chains;
  for (const std::string& text : specs) {
    auto spec = ParseChainSpec(text);
    if (!spec)
      return MakeError(spec.error().kind, fmt::format("--cert {}: {}", text, spec.error().message));
    auto made = MakeChain(*spec);
    if (!made) return made.error();
    chains.push_back(std::move(*made));
  }
  return chains;
}

void PrintSummary(const ServerStats& s) {
  const double secs = static_cast<double>(s.wall_ns) / 1e9;
  fmt::print("stopped after {:.2f} s\n", secs);
  fmt::print("connections   {} accepted, {} refused{}\n", s.accepted, s.refused,
             s.refused_per_source > 0
                 ? fmt::format(", {} over the per-source limit", s.refused_per_source)
                 : "");
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

// Serves: whether `protocols` (serve --protocol) holds `p`.
bool Serves(const std::vector<Protocol>& protocols, Protocol p) {
  return std::find(protocols.begin(), protocols.end(), p) != protocols.end();
}
// ServesTcp: a TCP listener, for h1 or h2 (one listener serves both: ALPN picks).
bool ServesTcp(const std::vector<Protocol>& protocols) {
  return Serves(protocols, Protocol::kH1) || Serves(protocols, Protocol::kH2);
}

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

// ServeFlags: every flag of serve, parsed into typed values.
struct ServeFlags {
  std::vector<Protocol> protocols;  // --protocol, parsed in ServeMain
  SocketAddress listen_address;     // --listen, parsed in ServeMain
  std::string listen = "127.0.0.1:8443", protocol = "h1", groups = kDefaultServerGroups,
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
};

void AddServeFlags(CLI::App& app, ServeFlags& f) {
  app.add_option("--listen", f.listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  app.add_option("--protocol", f.protocol,
                 "h1 (HTTP/1.1 over TLS over TCP), h2 (HTTP/2 as well on the same TCP "
                 "listener: ALPN picks), h3 (HTTP/3 over QUIC on UDP), or a list such as "
                 "h1,h2,h3 (one port number)")
      ->capture_default_str();
  auto* cert_opt =
      app.add_option("--cert", f.certs,
                     "certificate chain to make, leaf first (ml-dsa-65/ml-dsa-87); repeat it for "
                     "a server holding several, one per leaf key type, picked by the client's "
                     "signature_algorithms (--cert ecdsa-p256 --cert ml-dsa-65)")
          ->capture_default_str();
  auto* cert_file_opt = app.add_option("--cert-file", f.cert_files,
                                       "PEM chain file (leaf first) instead of --cert; repeatable");
  auto* key_file_opt = app.add_option("--key-file", f.key_files,
                                      "PEM private key of each --cert-file, in the same order");
  cert_file_opt->needs(key_file_opt)->excludes(cert_opt);
  key_file_opt->needs(cert_file_opt);
  app.add_option("--groups", f.groups,
                 "server preference, OpenSSL syntax (':' between groups, '/' between "
                 "preference tuples)")
      ->capture_default_str();
  app.add_option("--tickets", f.tickets, "issue session tickets")
      ->capture_default_str()
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--cache", f.cache, "server-side session cache")
      ->capture_default_str()
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--early-data", f.early_data,
                 "accept 0-RTT early data on resumption (anti-replay on: each ticket once; "
                 "needs --cache on)")
      ->capture_default_str()
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--quic-retry", f.quic_retry,
                 "h3: validate each client's address with a Retry before its handshake (one "
                 "more round trip; spoofed sources can then hold nothing): auto = on when "
                 "--listen is not a loopback address")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--threads", f.threads, "event-loop threads (one SO_REUSEPORT listener each)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--ciphersuites", f.ciphersuites, "TLS 1.3 cipher suites (OpenSSL names)");
  app.add_option("--write-ca", f.write_ca,
                 "write the root certificate of each chain (one PEM file) here")
      ->excludes(cert_file_opt);
  AddDuration(app, "--duration", f.duration, "stop by itself after this long (e.g. 30s)",
              24 * 3600 * kSecond);
  AddDuration(app, "--handshake-timeout", f.handshake_timeout, "accept to handshake done, at most",
              3600 * kSecond);
  AddDuration(app, "--idle-timeout", f.idle_timeout, "close a connection idle for this long",
              3600 * kSecond);
  AddDuration(app, "--handshake-cpu", f.handshake_cpu,
              "spend this much more CPU on every handshake, before answering the ClientHello (a "
              "server made slower by a known amount, e.g. 50us, for a study of builds to find; "
              "HTTP/1.1 over TCP)",
              kSecond);
  app.add_option("--max-connections", f.max_connections, "open connections per thread, at most")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}));
  app.add_option("--max-per-source", f.max_per_source,
                 "open connections one source (an IPv4 address, an IPv6 /64) may hold across "
                 "threads, at most; 0: no limit; auto: 1000 when --listen is not a loopback "
                 "address, else none (a load host is one source)")
      ->capture_default_str();

  AddProviderFlags(app, f.providers);
  app.add_option("--stats-json", f.stats_json, "write the final server stats as JSON here");
  app.add_flag("--count-control", f.count_control,
               "the window of `pqc-bench count`: reads zero and dump on stdin (under callgrind)");
  auto* clients_opt = app.add_option(
      "--clients", f.clients,
      "record every connection's ClientHello (groups, key shares, signature algorithms, …), "
      "what it negotiated and its User-Agent into this SQLite file; `report --clients FILE` "
      "summarises it by client");
  app.add_option("--clients-max", f.clients_max,
                 "rows --clients keeps, at most (more connections are counted as dropped)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}))
      ->needs(clients_opt);
  auto* nginx_opt = app.add_flag("--nginx", f.use_nginx,
                                 "run nginx with these flags instead of the embedded server");
  app.add_option("--nginx-exe", f.nginx_exe, "nginx binary (default: $PQC_NGINX, else the build's)")
      ->needs(nginx_opt);
  auto* haproxy_opt = app.add_flag("--haproxy", f.use_haproxy,
                                   "run HAProxy with these flags instead of the embedded server");
  app.add_option("--haproxy-exe", f.haproxy_exe,
                 "HAProxy binary (default: $PQC_HAPROXY, else the build's)")
      ->needs(haproxy_opt);
  nginx_opt->excludes(haproxy_opt);
  // (--nginx or --haproxy: checked in ServeMain, CLI11's needs() takes one option)
  app.add_option("--work-dir", f.work_dir,
                 "nginx/HAProxy: directory for its configuration, logs and payload files "
                 "(default: new one under $TMPDIR)");
  AddSizeList(app, "--payload-sizes", f.payload_sizes,
              "nginx/HAProxy: /payload/<size> bodies to serve", 1ULL << 30);
}

// ServerCerts: the --cert chains made now (their roots written to --write-ca), or the
// --cert-file/--key-file pairs; `what` names them for the "listening on" line.
struct ServerCerts {
  std::vector<CertChain> chains;
  std::vector<CertKeyFiles> files;
  std::string what;
};

Result<ServerCerts> MakeServerCerts(const ServeFlags& f) {
  ServerCerts out;
  if (!f.cert_files.empty()) {
    if (f.cert_files.size() != f.key_files.size()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--cert-file given {} times and --key-file {}: each chain file "
                                   "needs its key file, in the same order",
                                   f.cert_files.size(), f.key_files.size()));
    }
    for (size_t i = 0; i < f.cert_files.size(); ++i) {
      out.files.push_back({AbsolutePath(f.cert_files[i]), AbsolutePath(f.key_files[i])});
    }
    out.what = fmt::format("{}", fmt::join(f.cert_files, " + "));
    return out;
  }
  auto chains = MakeChains(f.certs);
  if (!chains) return chains.error();
  out.chains = std::move(*chains);
  out.what = fmt::format("{}", fmt::join(f.certs, " + "));
  if (!f.write_ca.empty()) {
    if (Status s = WriteTrustAnchors(out.chains, f.write_ca); !s) return s.error();
  }
  return out;
}

// QuicRetry: --quic-retry for the server at --listen (auto: on beyond loopback).
bool QuicRetry(const ServeFlags& f) {
  return f.quic_retry == "on" || (f.quic_retry == "auto" && !f.listen_address.IsLoopback());
}

int ServeWithPeer(const ServeFlags& f) {
  auto certs = MakeServerCerts(f);
  if (!certs) return ReportError("serve", certs.error());
  PeerServeOptions n;
  n.kind = f.use_nginx ? target::TargetKind::kNginx : target::TargetKind::kHaproxy;
  n.exe = f.use_nginx ? f.nginx_exe : f.haproxy_exe;
  n.chains = std::move(certs->chains);
  for (const CertKeyFiles& c : certs->files) n.config.certs.push_back({c.chain_file, c.key_file});
  n.cert_names = certs->what;
  n.work_dir = f.work_dir;
  n.listen = f.listen_address;
  n.config.groups = f.groups;
  n.config.quic = Serves(f.protocols, Protocol::kH3);  // with TCP (ServeMain refused h3 alone)
  n.config.h2 = Serves(f.protocols, Protocol::kH2);
  n.config.quic_retry = QuicRetry(f);
  n.config.tickets = f.tickets == "on";
  n.config.session_cache = f.cache == "on";
  n.config.early_data = f.early_data == "on";
  n.config.threads = static_cast<unsigned>(f.threads);
  n.config.ciphersuites = f.ciphersuites;
  n.config.payload_sizes = f.payload_sizes;
  // The server loads them itself, from an openssl.cnf (OPENSSL_CONF) its driver writes.
  const ProviderSpec spec = f.providers.Spec();
  n.config.providers = spec.names;
  n.config.provider_path = spec.path;
  n.config.property_query = spec.property_query;
  if (std::find(spec.names.begin(), spec.names.end(), "fips") != spec.names.end()) {
    auto fips = FipsModuleConfig(spec);
    if (!fips) return ReportError("serve", fips.error());
    n.config.fips_config = *fips;
  }
  StopSignals signals;
  return ServePeer(std::move(n), signals, f.duration > 0 ? MonotonicNow() + f.duration : 0);
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

int ServeEmbedded(const ServeFlags& f) {
  ServerOptions options;
  options.listen = f.listen_address;
  options.threads = f.threads;
  options.max_connections_per_thread = f.max_connections;
  options.quic_retry = QuicRetry(f);
  if (f.max_per_source == "auto") {
    options.max_connections_per_source = f.listen_address.IsLoopback() ? 0 : kExposedMaxPerSource;
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
  if (!servers) return ReportError("serve", Explain(servers.error()));
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
  PrintSummary(stats);
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

}  // namespace

int ServeMain(int argc, char** argv) {
  CLI::App app{
      "The embedded HTTPS target: TLS 1.3, HTTP/1.1 keep-alive; / answers OK, "
      "/payload/<size> that many bytes. Stops on SIGINT/SIGTERM or after --duration.",
      "pqc-bench serve"};
  ServeFlags flags;
  AddServeFlags(app, flags);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (Status st = LoadProviders(flags.providers); !st) return ReportError("serve", st.error());
  // The default preference, under providers the user chose, keeps what they have.
  if (app.count("--groups") == 0 && !flags.providers.names.empty()) {
    flags.groups = TolerantGroupList(flags.groups);
  }
  auto protocols = ParseProtocolList(flags.protocol);
  if (!protocols) {
    return ReportError(
        "serve",
        MakeError(ErrorKind::kUsage, fmt::format("--protocol: {}", protocols.error().message)));
  }
  flags.protocols = std::move(*protocols);
  auto listen = ParseAddress(flags.listen);
  if (!listen) return ReportError("serve", listen.error());
  flags.listen_address = *listen;
  const bool peer = flags.use_nginx || flags.use_haproxy;
  if (peer && !ServesTcp(flags.protocols)) {
    return ReportError("serve", MakeError(ErrorKind::kUsage,
                                          "--protocol with --nginx or --haproxy: h1 or h2 with "
                                          "h3, e.g. h1,h3 (they listen on TCP whenever they "
                                          "serve HTTP/3 on UDP)"));
  }
  if (!flags.clients.empty() && !ServesTcp(flags.protocols)) {
    return ReportError("serve", MakeError(ErrorKind::kUsage,
                                          "--clients records ClientHellos over TCP: give "
                                          "--protocol h1,h3 (or h1, or h2) with it"));
  }
  if (app.count("--handshake-cpu") > 0 && (peer || Serves(flags.protocols, Protocol::kH3))) {
    return ReportError("serve", MakeError(ErrorKind::kUsage,
                                          "--handshake-cpu: the embedded server over TCP only "
                                          "(--protocol h1, no --nginx or --haproxy)"));
  }
  if (peer && !flags.clients.empty()) {
    return ReportError("serve", MakeError(ErrorKind::kUsage,
                                          "--clients: the embedded server only (it is the one "
                                          "that reads each ClientHello)"));
  }
  if (flags.count_control && (peer || !UnderCallgrind())) {
    return ReportError("serve", MakeError(ErrorKind::kUsage,
                                          "--count-control: the embedded server, run by "
                                          "`pqc-bench count` under callgrind"));
  }
  if (peer && !flags.stats_json.empty()) {
    return ReportError("serve", MakeError(ErrorKind::kUsage,
                                          "--stats-json: the embedded server only (nginx and "
                                          "HAProxy keep no handshake counts here)"));
  }
  for (const char* name : {"--work-dir", "--payload-sizes"}) {
    if (!peer && app.count(name) > 0) {
      return ReportError("serve", MakeError(ErrorKind::kUsage,
                                            fmt::format("{} applies to --nginx or --haproxy (the "
                                                        "embedded server serves every size)",
                                                        name)));
    }
  }
  return peer ? ServeWithPeer(flags) : ServeEmbedded(flags);
}

}  // namespace pqc::cli
