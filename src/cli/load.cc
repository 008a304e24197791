// load — `pqc-bench load`: one arm of open-loop load against a target, every connection
// timed phase by phase; summary on stdout, optional JSON and per-connection CSV.
#include <fmt/core.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "client/load_runner.h"
#include "client/mode_spec.h"
#include "client/samples_csv.h"
#include "client/summary.h"
#include "client/summary_output.h"
#include "core/units.h"
#include "tls/algorithms.h"
#include "tls/ssl_error.h"

namespace pqc::cli {
namespace {

Result<X509Ptr> ReadCertificate(const std::string& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"));
  if (!bio) return MakeError(ErrorKind::kIo, fmt::format("--ca: cannot read {}", path));
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return SslError(fmt::format("--ca: {} holds no PEM certificate", path));
  return cert;
}

// Opens an output file before the run, so that a bad path fails now, not after minutes.
Result<std::ofstream> OpenOutput(const std::string& path, const char* flag) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) {
    return MakeError(ErrorKind::kIo, fmt::format("{}: cannot write {}", flag, path));
  }
  return out;
}

}  // namespace

int LoadMain(int argc, char** argv) {
  CLI::App app{"Open-loop TLS 1.3 load against one target; every connection timed phase by phase.",
               "pqc-bench load"};
  std::string target, mode = "fresh", mix, rate = "100", arrivals = "uniform", duration = "10s",
                      warmup = "1s", path = "/", groups = "X25519MLKEM768", key_shares, sigalgs,
                      ciphersuites, timeout = "10s", json_path, samples_path, ca,
                      server_name = "localhost", expect_group, expect_sigalg, max_error_rate = "1%",
                      max_lag = "1ms", request_interval = "0s";
  uint32_t requests = 0;
  unsigned threads = 1;
  uint32_t max_inflight = 10000;
  uint32_t closed_loop = 0;
  bool busy_poll = false;
  uint64_t seed = 1;
  app.add_option("--target", target, "HOST:PORT of the TLS server")->required();
  app.add_option("--mode", mode, "fresh | reuse | resume | mix")->capture_default_str();
  app.add_option("--mix", mix, "weights for --mode mix, e.g. resume:80,fresh:20");
  app.add_option("--rate", rate, "new connections per second, open loop (e.g. 300)")
      ->capture_default_str();
  app.add_option("--closed-loop", closed_loop,
                 "closed loop instead: keep N connections in flight, each replaced when it ends "
                 "(--rate unused; for server capacity, not open-loop latency)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--arrivals", arrivals, "uniform | poisson")->capture_default_str();
  app.add_flag("--busy-poll", busy_poll,
               "poll sockets instead of sleeping: no thread wake-up in connect times or start "
               "lag (each thread then uses a whole CPU)");
  app.add_option("--duration", duration, "measured phase (e.g. 30s)")->capture_default_str();
  app.add_option("--warmup", warmup, "discarded phase before it; collects tickets for resume")
      ->capture_default_str();
  app.add_option("--requests", requests, "requests per connection (default 1; reuse: 10)");
  app.add_option("--request-interval", request_interval,
                 "keep-alive think time between a connection's requests (e.g. 500ms)");
  app.add_option("--path", path, "request path: / or /payload/<size> (100B, 10K, 1M)")
      ->capture_default_str();
  app.add_option("--groups", groups, "groups the client offers, in order, ':'-separated")
      ->capture_default_str();
  app.add_option("--key-shares", key_shares,
                 "groups that get a key share in the ClientHello (default: the first)");
  app.add_option("--sigalgs", sigalgs, "signature algorithms offered (OpenSSL names)");
  app.add_option("--ciphersuites", ciphersuites, "TLS 1.3 cipher suites");
  app.add_option("--threads", threads, "client threads (one event loop each)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 256u));
  app.add_option("--max-inflight", max_inflight,
                 "open connections at most (all threads); beyond it arrivals are skipped. "
                 "The file-descriptor limit must hold min(this, rate x timeout) + 64")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1'000'000u));
  app.add_option("--timeout", timeout, "a connection without progress this long fails")
      ->capture_default_str();
  app.add_option("--ca", ca, "verify the server against this PEM root (default: no verification)");
  app.add_option("--server-name", server_name, "SNI and Host header")->capture_default_str();
  app.add_option("--expect-group", expect_group,
                 "group every connection must negotiate "
                 "(default: the first of --groups)");
  app.add_option("--expect-sigalg", expect_sigalg,
                 "server signature scheme every full handshake must use (default: the first of "
                 "--sigalgs, if given)");
  app.add_option("--max-error-rate", max_error_rate, "errors above this make the run invalid")
      ->capture_default_str();
  app.add_option("--max-lag-p99", max_lag,
                 "start lag p99 above this marks the load generator saturated")
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of Poisson arrivals and mix choices")->capture_default_str();
  app.add_option("--json", json_path, "write the summary as JSON to this file");
  app.add_option("--samples", samples_path, "write one CSV row per connection to this file");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;

  LoadOptions o;
  auto fail = [](const Error& e) { return ReportError("load", e); };
  auto addr = ParseAddress(target);
  if (!addr) return fail(addr.error());
  o.target = *addr;
  o.server_name = server_name;
  o.mode_text = mode;
  auto modes = ParseModes(mode, mix);
  if (!modes) return fail(modes.error());
  o.mix = std::move(*modes);
  auto r = ParseRate(rate);
  if (!r) return fail(r.error());
  o.rate = *r;
  o.closed_loop = closed_loop;
  o.busy_poll = busy_poll;
  if (arrivals != "uniform" && arrivals != "poisson") {
    return fail(MakeError(ErrorKind::kUsage, fmt::format("--arrivals '{}': valid are uniform, "
                                                         "poisson",
                                                         arrivals)));
  }
  o.arrivals = arrivals == "poisson" ? Arrivals::kPoisson : Arrivals::kUniform;
  auto d = ParseDuration(duration);
  if (!d) return fail(d.error());
  auto w = ParseDuration(warmup);
  if (!w) return fail(w.error());
  auto t = ParseDuration(timeout);
  if (!t) return fail(t.error());
  if (*d <= 0 || *t <= 0) {
    return fail(MakeError(ErrorKind::kUsage, "--duration and --timeout must be greater than 0"));
  }
  // Every load loop is bounded: a day is far beyond any benchmark's trial.
  if (*d + *w > 86'400'000'000'000) {
    return fail(MakeError(ErrorKind::kUsage, "--duration + --warmup must be at most 24h"));
  }
  o.duration = *d;
  o.warmup = *w;
  o.timeout = *t;
  const bool reuse = std::any_of(o.mix.begin(), o.mix.end(),
                                 [](const MixWeight& m) { return m.mode == ConnMode::kReuse; });
  o.requests = requests != 0 ? requests : (reuse ? 10 : 1);
  o.path = path;
  auto ri = ParseDuration(request_interval);
  if (!ri) return fail(ri.error());
  if (*ri > 0 && o.requests < 2) {
    return fail(MakeError(ErrorKind::kUsage, "--request-interval needs --requests 2 or more"));
  }
  o.request_interval = *ri;
  auto g = ParseGroupList(groups);
  if (!g) return fail(g.error());
  o.tls.groups = *g;
  if (!key_shares.empty()) {
    auto ks = ParseGroupList(key_shares);
    if (!ks) return fail(ks.error());
    o.tls.key_shares = *ks;
  }
  o.tls.sigalgs = sigalgs;
  o.tls.ciphersuites = ciphersuites;
  X509Ptr anchor;
  if (!ca.empty()) {
    auto cert = ReadCertificate(ca);
    if (!cert) return fail(cert.error());
    anchor = std::move(*cert);
    o.tls.trust_anchor = anchor.get();
  }
  o.threads = threads;
  // No silent cap at the file-descriptor limit: RunLoad refuses an arm whose worst case does
  // not fit and names the `ulimit -n` to set (client/fd_limit.h).
  o.max_inflight = max_inflight;
  o.seed = seed;
  o.expect_group = expect_group.empty() ? o.tls.groups.front() : expect_group;
  if (!expect_group.empty()) {
    if (auto eg = FindGroup(expect_group); !eg) return fail(eg.error());
  }
  o.expect_sigalg = expect_sigalg;
  if (o.expect_sigalg.empty() && !sigalgs.empty()) {
    o.expect_sigalg = sigalgs.substr(0, sigalgs.find_first_of(":,"));
  }
  auto mer = ParsePercent(max_error_rate);
  if (!mer) return fail(mer.error());
  o.max_error_rate = *mer;
  auto ml = ParseDuration(max_lag);
  if (!ml) return fail(ml.error());
  o.max_lag_p99 = *ml;

  std::optional<std::ofstream> json_out, samples_out;
  if (!json_path.empty()) {
    auto f = OpenOutput(json_path, "--json");
    if (!f) return fail(f.error());
    json_out = std::move(*f);
  }
  if (!samples_path.empty()) {
    auto f = OpenOutput(samples_path, "--samples");
    if (!f) return fail(f.error());
    samples_out = std::move(*f);
  }

  auto result = RunLoad(o, isatty(STDERR_FILENO) ? stderr : nullptr);
  if (!result) return fail(result.error());
  LoadSummary summary = Summarize(*result);
  if (result->interrupted) {
    summary.invalid_reasons.push_back("interrupted by a signal before the schedule ended");
  }
  WriteSummaryTable(std::cout, summary);
  std::cout.flush();
  if (json_out) WriteSummaryJson(*json_out, summary);
  if (samples_out) WriteSamplesCsv(*samples_out, *result);
  if ((json_out && !*json_out) || (samples_out && !*samples_out)) {
    return fail(MakeError(ErrorKind::kIo, "writing an output file failed (disk full?)"));
  }
  return summary.valid() ? kExitOk : kExitInvalid;
}

}  // namespace pqc::cli
