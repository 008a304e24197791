#include "cli/serve_flags.h"

#include <fmt/core.h>

#include <algorithm>

#include "core/instruction_window.h"

namespace pqc::cli {

void AddServeFlags(CLI::App& app, ServeFlags& f) {
  app.add_option("--listen", f.listen_text, "HOST:PORT to listen on (port 0: any free port)")
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
  // (--nginx or --haproxy: checked in ParseServeFlags, CLI11's needs() takes one option)
  app.add_option("--work-dir", f.work_dir,
                 "nginx/HAProxy: directory for its configuration, logs and payload files "
                 "(default: new one under $TMPDIR)");
  AddSizeList(app, "--payload-sizes", f.payload_sizes,
              "nginx/HAProxy: /payload/<size> bodies to serve", 1ULL << 30);
}

namespace {

// ServeUsage: a refused flag or combination.
Error ServeUsage(std::string message) {
  return MakeError(ErrorKind::kUsage, std::move(message));
}

}  // namespace

Status ParseServeFlags(const CLI::App& app, ServeFlags& f) {
  if (Status st = LoadProviders(f.providers); !st) return st;
  // The default preference, under providers the user chose, keeps what they have.
  if (app.count("--groups") == 0 && !f.providers.names.empty()) {
    f.groups = TolerantGroupList(f.groups);
  }
  auto protocols = ParseProtocolList(f.protocol);
  if (!protocols) return ServeUsage(fmt::format("--protocol: {}", protocols.error().message));
  f.protocols = std::move(*protocols);
  auto listen = ParseAddress(f.listen_text);
  if (!listen) return listen.error();
  f.listen = *listen;
  const bool peer = f.peer();
  if (peer && !ServesTcp(f.protocols)) {
    return ServeUsage(
        "--protocol with --nginx or --haproxy: h1 or h2 with h3, e.g. h1,h3 (they listen on TCP "
        "whenever they serve HTTP/3 on UDP)");
  }
  if (!f.clients.empty() && !ServesTcp(f.protocols)) {
    return ServeUsage(
        "--clients records ClientHellos over TCP: give --protocol h1,h3 (or h1, or h2) with it");
  }
  if (app.count("--handshake-cpu") > 0 && (peer || Serves(f.protocols, Protocol::kH3))) {
    return ServeUsage(
        "--handshake-cpu: the embedded server over TCP only (--protocol h1, no --nginx or "
        "--haproxy)");
  }
  if (peer && !f.clients.empty()) {
    return ServeUsage(
        "--clients: the embedded server only (it is the one that reads each ClientHello)");
  }
  if (f.count_control && (peer || !UnderCallgrind())) {
    return ServeUsage(
        "--count-control: the embedded server, run by `pqc-bench count` under callgrind");
  }
  if (peer && !f.stats_json.empty()) {
    return ServeUsage(
        "--stats-json: the embedded server only (nginx and HAProxy keep no handshake counts "
        "here)");
  }
  for (const char* name : {"--work-dir", "--payload-sizes"}) {
    if (!peer && app.count(name) > 0) {
      return ServeUsage(fmt::format(
          "{} applies to --nginx or --haproxy (the embedded server serves every size)", name));
    }
  }
  return {};
}

bool Serves(const std::vector<Protocol>& protocols, Protocol p) {
  return std::find(protocols.begin(), protocols.end(), p) != protocols.end();
}

bool ServesTcp(const std::vector<Protocol>& protocols) {
  return Serves(protocols, Protocol::kH1) || Serves(protocols, Protocol::kH2);
}

bool QuicRetry(const ServeFlags& f) {
  return f.quic_retry == "on" || (f.quic_retry == "auto" && !f.listen.IsLoopback());
}

}  // namespace pqc::cli
