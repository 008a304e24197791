// load — `pqc-bench load`: one arm of open-loop load against a target, every connection
// timed phase by phase; summary on stdout, optional JSON and per-connection CSV.
#include <fmt/core.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "cli/arm_flags.h"
#include "cli/command.h"
#include "cli/provider_flags.h"
#include "cli/shard_flags.h"
#include "client/load_runner.h"
#include "records/samples_csv.h"
#include "records/summary.h"
#include "records/summary_output.h"
#include "core/file_output.h"
#include "scenario/arm_options.h"
#include "tls/cert_chain.h"
#include "tls/ssl_error.h"

namespace pqc::cli {
namespace {

// ReadCertificates: every PEM certificate of the file (serve --write-ca writes one root per
// chain the server holds), read now so that a bad file fails before the run.
Result<std::vector<X509Ptr>> ReadCertificates(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(ErrorKind::kIo, fmt::format("--ca: cannot read {}", path));
  const std::string pem((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto certs = CertsFromPem(pem);
  if (!certs) {
    return MakeError(certs.error().kind, fmt::format("--ca: {} holds no PEM certificate", path));
  }
  return certs;
}

// Opens an output file before the run, so that a bad path fails now, not after minutes.

// LoadFlags: load's own flags, beside the arm's (ArmFlags): where to connect and how to
// verify, what to write, and the client knobs a scenario does not vary.
struct LoadFlags {
  std::string target, path, ciphersuites, ca, server_name = "localhost", expect_sigalg, json_path,
                                              samples_path;
  uint32_t max_inflight = 10000;
  uint64_t seed = 1;
};

void AddLoadFlags(CLI::App& app, LoadFlags& f) {
  app.add_option("--target", f.target, "HOST:PORT of the TLS server")->required();
  app.add_option("--path", f.path,
                 "request path instead of --payload's (e.g. /payload/10K, or your server's)");
  app.add_option("--ciphersuites", f.ciphersuites, "TLS 1.3 cipher suites");
  app.add_option("--max-inflight", f.max_inflight,
                 "open connections at most (all threads); beyond it arrivals are skipped. "
                 "The file-descriptor limit must hold min(this, rate x timeout) + 64")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1'000'000u));
  app.add_option("--ca", f.ca,
                 "verify the server against this PEM root (default: no verification)");
  app.add_option("--server-name", f.server_name, "SNI and Host header")->capture_default_str();
  app.add_option("--expect-sigalg", f.expect_sigalg,
                 "server signature scheme every full handshake must use (default: the first of "
                 "--sigalgs, if given)");
  app.add_option("--seed", f.seed, "seed of Poisson arrivals and mix choices")
      ->capture_default_str();
  app.add_option("--json", f.json_path, "write the summary as JSON to this file");
  app.add_option("--samples", f.samples_path, "write one CSV row per connection to this file");
}

Error LoadUsage(std::string message) {
  return MakeError(ErrorKind::kUsage, std::move(message));
}

// MakeOptions: the arm from the table's flags, with load's two defaults of its own (the group
// that must be negotiated is the first offered; reuse makes 10 requests), then load's flags.
Result<LoadOptions> MakeOptions(const LoadFlags& f, const ArmFlags& arm_flags,
                                std::vector<X509Ptr>& anchors) {
  scenario::ArmSettings s;
  if (Status st = arm_flags.ApplyTo(s); !st) return st.error();
  if (!arm_flags.Given("group") && !s.client_groups.empty()) s.group = s.client_groups.front();
  const bool reuse = std::any_of(s.mode.begin(), s.mode.end(),
                                 [](const MixWeight& m) { return m.mode == ConnMode::kReuse; });
  if (!arm_flags.Given("requests") && reuse) s.requests = 10;
  if (s.request_interval > 0 && s.requests < 2) {
    return LoadUsage("--request-interval needs --requests 2 or more");
  }
  s.target = scenario::TargetKind::kExternal;  // a server load does not start
  auto endpoint = ParseEndpoint(f.target);
  if (!endpoint) return endpoint.error();
  s.address = *endpoint;
  if (Status st = scenario::Validate(s, "load"); !st) return LoadUsage(st.error().message);
  LoadOptions o = scenario::MakeLoadOptions(s, endpoint->socket, f.seed);
  if (!f.path.empty()) o.path = f.path;
  o.server_name = f.server_name;
  o.tls.ciphersuites = f.ciphersuites;
  if (!f.ca.empty()) {
    auto certs = ReadCertificates(f.ca);
    if (!certs) return certs.error();
    anchors = std::move(*certs);
    for (const X509Ptr& c : anchors) o.tls.trust_anchors.push_back(c.get());
  }
  // No silent cap at the file-descriptor limit: RunLoad refuses an arm whose worst case does
  // not fit and names the `ulimit -n` to set (client/fd_limit.h).
  o.max_inflight = f.max_inflight;
  o.expect_sigalg = f.expect_sigalg;
  if (o.expect_sigalg.empty() && !s.sigalgs.empty()) {
    o.expect_sigalg = s.sigalgs.substr(0, s.sigalgs.find_first_of(":,"));
  }
  return o;
}

// RunAndReport: the run, its table on stdout and the optional files; the exit status says
// whether the result is valid.
int RunAndReport(const LoadOptions& o, const LoadFlags& f) {
  auto fail = [](const Error& e) { return ReportError("load", e); };
  // Made before the load, so that an output that cannot be written fails before anything is
  // measured; renamed into place once written.
  std::optional<OutputFile> json_out, samples_out;
  if (!f.json_path.empty()) {
    auto out = OutputFile::Create(f.json_path, kPublicFile, "--json");
    if (!out) return fail(out.error());
    json_out = std::move(*out);
  }
  if (!f.samples_path.empty()) {
    auto out = OutputFile::Create(f.samples_path, kPublicFile, "--samples");
    if (!out) return fail(out.error());
    samples_out = std::move(*out);
  }
  auto result = RunLoad(o, isatty(STDERR_FILENO) ? stderr : nullptr);
  if (!result) return fail(result.error());
  LoadSummary summary = Summarize(*result);
  if (result->interrupted) {
    summary.invalid_reasons.push_back("interrupted by a signal before the schedule ended");
  }
  WriteSummaryTable(std::cout, summary);
  std::cout.flush();
  if (json_out) {
    WriteSummaryJson(json_out->stream(), summary);
    if (Status st = json_out->Commit(); !st) return fail(st.error());
  }
  if (samples_out) {
    WriteSamplesCsv(samples_out->stream(), *result);
    if (Status st = samples_out->Commit(); !st) return fail(st.error());
  }
  return summary.valid() ? kExitOk : kExitInvalid;
}

}  // namespace

int LoadMain(int argc, char** argv) {
  CLI::App app{"Open-loop TLS 1.3 load against one target; every connection timed phase by phase.",
               "pqc-bench load"};
  LoadFlags flags;
  ArmFlags arm_flags;
  AddLoadFlags(app, flags);
  arm_flags.Bind(app);
  app.get_option("--group")->description(
      "group every connection must negotiate (default: the first of --groups)");
  app.get_option("--requests")->description("requests per connection (default 1; reuse: 10)");
  ProviderFlags providers;
  AddProviderFlags(app, providers);
  ShardFlags shard_flags;
  AddShardFlags(app, shard_flags, /*run=*/false);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  auto shard = ParseShardFlag(shard_flags);
  if (!shard) return ReportError("load", shard.error());
  auto start_at = ParseStartAt(shard_flags);
  if (!start_at) return ReportError("load", start_at.error());
  if (Status st = LoadProviders(providers); !st) return ReportError("load", st.error());
  std::vector<X509Ptr> anchors;
  auto options = MakeOptions(flags, arm_flags, anchors);
  if (!options) return ReportError("load", options.error());
  options->shard = *shard;
  options->start_at_unix_ns = *start_at;
  options->max_start_late = shard_flags.start_tolerance;
  if (shard->sharded() && options->closed_loop > 0 && options->closed_loop < shard->count) {
    return ReportError("load",
                       LoadUsage(fmt::format("--closed-loop {} over {} shards leaves a shard "
                                             "without a connection; give at least one per "
                                             "shard",
                                             options->closed_loop, shard->count)));
  }
  return RunAndReport(*options, flags);
}

}  // namespace pqc::cli
