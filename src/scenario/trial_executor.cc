#include "scenario/trial_executor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include "client/site_union.h"
#include "records/summary.h"
#include "core/file_output.h"
#include "core/paths.h"
#include "link/netns.h"
#include "scenario/arm_options.h"
#include "scenario/build_trial.h"
#include "scenario/merged_trial.h"
#include "scenario/run_facts.h"
#include "tls/cert_chain.h"
#include "tls/probe.h"

namespace pqc::scenario {
namespace {

namespace fs = std::filesystem;

// kSiteStartMargin: from the start barrier's choice to the instant every site's load starts
// (each site's threads must have entered their namespace and be waiting by then).
constexpr Nanos kSiteStartMargin = 150'000'000;

// MakeTarget: the arm's server driver, with its build's nginx or HAProxy when it names one.
Result<std::unique_ptr<target::Target>> MakeTarget(const ArmSettings& s, const RunOptions& o,
                                                   const Build* build) {
  const std::string& nginx = build && !build->nginx.empty() ? build->nginx : o.nginx_exe;
  const std::string& haproxy = build && !build->haproxy.empty() ? build->haproxy : o.haproxy_exe;
  if (s.target == TargetKind::kEmbedded) return target::MakeEmbeddedTarget(o.self_exe);
  if (s.target == TargetKind::kNginx) {
    if (nginx.empty()) {
      return MakeError(
          ErrorKind::kConfig,
          "target nginx: no nginx binary known (run scripts/setup.sh peers, which builds "
          "it, and pass --nginx or set PQC_NGINX)");
    }
    return target::MakeNginxTarget(nginx);
  }
  if (s.target == TargetKind::kHaproxy) {
    if (haproxy.empty()) {
      return MakeError(ErrorKind::kConfig,
                       "target haproxy: no HAProxy binary known (run scripts/setup.sh peers, which "
                       "builds it, and pass --haproxy or set PQC_HAPROXY)");
    }
    return target::MakeHaproxyTarget(haproxy);
  }
  return target::MakeExternalTarget(s.address.socket);
}

results::TargetRecord TargetRecordOf(const target::TargetStats& t, double ready_s) {
  return {.cpu_user_s = t.cpu_user_s,
          .cpu_sys_s = t.cpu_sys_s,
          .wall_s = t.wall_s,
          .handshakes = t.handshakes,
          .log = t.log_path,
          .details = t.details,
          .ready_s = ready_s};
}

uint64_t ClientHandshakes(const LoadResult& r) {
  uint64_t n = 0;
  for (const ConnectionRecord& c : r.connections) n += c.tls_done != 0 ? 1 : 0;
  return n;
}

// FinishRow: what every trial row takes from its load.
void FinishRow(TrialOutput& out) {
  results::TrialRow& row = out.row;
  row.ended = UtcIso(UnixNowNs());
  row.summary = Summarize(out.load);
  row.reasons = row.summary.invalid_reasons;
  row.interrupted = out.load.interrupted;
  row.client_cpu_s = out.load.cpu_user_s + out.load.cpu_sys_s;
}

}  // namespace

TrialExecutor::TrialExecutor(const Scenario& scenario, const RunOptions& options,
                             const std::string& dir)
    : s_(scenario), o_(options), dir_(dir), certs_((fs::path(dir) / "certs").string()) {}

std::string TrialExecutor::ExplainFailure(const ArmSettings& s, const Error& e) {
  std::string text = e.message;
  if (!ToolRunsServer(s)) return text;  // its chain is not ours to probe
  std::set<std::string_view> seen;
  for (const SignatureInfo* sig : s.chain.links) {
    if (!seen.insert(sig->name).second) continue;
    SignatureProbe p = ProbeSignature(*sig);
    if (p.primitive && p.x509 && p.tls) continue;
    text += fmt::format("\nprobe {}: primitive {}, X.509 {}, TLS {}{}", sig->name,
                        p.primitive ? "ok" : "FAILS", p.x509 ? "ok" : "FAILS",
                        p.tls ? "ok" : "FAILS", p.error.empty() ? "" : " (" + p.error + ")");
  }
  return text;
}

// Follow records the trial as this shard's own (the server's CPU is shard 0's to record).
Result<TrialOutput> TrialExecutor::Follow(const Arm& arm, const PlannedTrial& t,
                                          const TrialStart& start) {
  const ArmSettings& s = arm.settings;
  std::vector<X509Ptr> roots;
  if (ToolRunsServer(s)) {
    auto certs = CertsFromPem(start.roots_pem);
    if (!certs) {
      return MakeError(ErrorKind::kIo, "shard 0 sent no usable roots: " + certs.error().message);
    }
    roots = std::move(*certs);
  }
  std::vector<X509*> anchors;
  for (const X509Ptr& r : roots) anchors.push_back(r.get());
  TrialOutput out;
  results::TrialRow& row = out.row;
  row.arm = arm.id;
  row.block = t.block;
  row.seq = t.seq;
  row.shard = o_.shard.index;
  row.started = UtcIso(UnixNowNs());
  SocketAddress addr = ToolRunsServer(s) ? start.target : s.address.socket;
  if (!start.netns.empty()) {
    // Shard 0's emulated link: this shard's clients are one of its sites, on this machine.
    addr = link::ServerAddress(start.target.port());
  }
  LoadOptions options = MakeLoadOptions(s, addr, s_.seed * 1'000'003ULL + t.seq);
  ApplyArmTrust(s, std::move(anchors), options);
  if (Status st = ApplyShard(s, start.start_at, options); !st) return st.error();
  row.mono_anchor_ns = MonotonicNow();
  row.wall_anchor_ns = UnixNowNs();
  auto load = start.netns.empty() ? RunLoad(options, o_.log) : RunLoadIn(start.netns, options);
  if (!load) {
    if (!start.netns.empty()) {
      return MakeError(load.error().kind,
                       fmt::format("{} (shard 0 runs the arm's emulated network '{}' on its "
                                   "machine; every shard of such a run must run there too)",
                                   load.error().message, s.network));
    }
    return load.error();
  }
  out.load = std::move(*load);
  // On a network of several sites, shard k is site k.
  if (s_.networks.at(s.network).multi_site()) {
    for (ConnectionRecord& c : out.load.connections) c.site = static_cast<uint8_t>(o_.shard.index);
  }
  FinishRow(out);
  row.target.run_by = "shard 0";
  row.valid = row.reasons.empty();
  return out;
}

// ApplyShard: this shard's share of the arm and its start barrier, and the providers.
Status TrialExecutor::ApplyShard(const ArmSettings& s, int64_t start_at, LoadOptions& options) {
  options.shard = o_.shard;
  options.start_at_unix_ns = start_at;
  options.max_start_late = o_.max_start_late;
  if (const ProviderSpec spec = ArmProviders(s); !spec.empty()) {
    auto lc = ClientLibrary(spec);
    if (!lc) return lc.error();
    options.tls.libctx = (*lc)->get();
    options.tls.propq = (*lc)->property_query();
  }
  return {};
}

// TargetFor: one driver per target kind, made when an arm first needs it (a matrix may
// compare the embedded server with nginx arm by arm).
Result<target::Target*> TrialExecutor::TargetFor(const ArmSettings& s) {
  std::string key(TargetKindName(s.target));
  if (!ToolRunsServer(s)) key += " " + s.address.text;
  key += " " + s.build;
  auto it = targets_.find(key);
  if (it == targets_.end()) {
    auto made = MakeTarget(s, o_, FindBuild(s_.builds, s.build));
    if (!made) return made.error();
    it = targets_.emplace(key, std::move(*made)).first;
  }
  return it->second.get();
}

// BuildFacts: what measures the arms of `name` (computed once per run: the binary's hash).
results::BuildRecord TrialExecutor::BuildFacts(const std::string& name) {
  auto it = build_facts_.find(name);
  if (it != build_facts_.end()) return it->second;
  const Build* b = FindBuild(s_.builds, name);
  results::BuildRecord r;
  if (b != nullptr && !b->pqc_bench.empty() && name != o_.as_build) {
    r = {.name = name, .exe = b->pqc_bench, .sha256 = FileSha256(b->pqc_bench)};
  } else {
    results::RunInfo self;
    FillRunFacts(self);
    std::error_code ec;
    const fs::path exe = fs::canonical(o_.self_exe, ec);  // /proc/self/exe names the binary
    r = BuildFactsOf(name, ec ? o_.self_exe : exe.string(), self.openssl_version, self.git_commit);
  }
  return build_facts_.emplace(name, r).first->second;
}

// RunInBuild: the trial measured by another build of the tool (build_trial.h), from the
// run's copy of the scenario text (made once).
Result<TrialOutput> TrialExecutor::RunInBuild(const Arm& arm, const PlannedTrial& t,
                                              const Build& build, const std::string& work) {
  if (scenario_copy_.empty()) {
    const fs::path dir = fs::path(dir_) / "builds";
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string file = (dir / (s_.name + ".toml")).string();
    if (Status st = WriteFileAtomically(file, s_.text, kPublicFile,
                                        fmt::format("the scenario for build '{}'", build.name));
        !st) {
      return st.error();
    }
    scenario_copy_ = AbsolutePath(file);
  }
  auto out = RunTrialInBuild(o_, arm, t, build, scenario_copy_, AbsolutePath(work));
  if (!out) return out.error();
  if (out->row.target.build) out->row.target.build->sha256 = BuildFacts(build.name).sha256;
  return out;
}

Result<TrialOutput> TrialExecutor::Run(const Arm& arm, const PlannedTrial& t,
                                       TrialBarrier& barrier) {
  const ArmSettings& s = arm.settings;
  const Build* build = FindBuild(s_.builds, s.build);
  if (build != nullptr && !build->pqc_bench.empty() && s.build != o_.as_build) {
    const std::string work = (fs::path(dir_) / "trials" / fmt::format("{:04}", t.seq)).string();
    std::error_code ec;
    fs::create_directories(work, ec);
    return RunInBuild(arm, t, *build, work);
  }
  auto driver = TargetFor(s);
  if (!driver) return driver.error();
  target::Target& target = **driver;
  const NetworkProfile& network = s_.networks.at(s.network);
  // An emulated network: two namespaces and the packet mover, for this trial only (a
  // fresh link per trial, like a fresh target: no queue or TCP metrics carried over).
  std::unique_ptr<link::Link> net;
  target::Placement placement;
  if (network.emulated()) {
    auto l = link::Link::Create(LinkSitesFor(network));
    if (!l) return l.error();
    net = std::move(*l);
    placement.netns_path = net->server_netns_path();
    placement.listen = net->server_address();
  } else if (barrier.serves_others()) {
    placement.listen = o_.serve_host;  // where the other shards reach it
  }
  // The chains the tool serves (none for an external server, which has its own); the run's
  // roots verify them, whichever the server picks.
  std::vector<target::ServerCert> certs;
  std::vector<X509*> anchors;
  if (ToolRunsServer(s)) {
    for (const ChainSpec& spec : ServedChains(s)) {
      auto made = certs_.Get(spec.text);
      if (!made) return made.error();
      certs.push_back({(*made)->files.chain_pem, (*made)->files.leaf_key_pem});
      anchors.push_back((*made)->chain.root().cert.get());
    }
  }
  const std::string work = (fs::path(dir_) / "trials" / fmt::format("{:04}", t.seq)).string();
  std::error_code ec;
  fs::create_directories(work, ec);
  TrialOutput out;
  results::TrialRow& row = out.row;
  row.arm = arm.id;
  row.block = t.block;
  row.seq = t.seq;
  row.started = UtcIso(UnixNowNs());
  const Nanos starting = MonotonicNow();
  target::ServerConfig config;
  if (ToolRunsServer(s)) {
    config = MakeServerConfig(s, std::move(certs));
    if (build != nullptr) config.serve_args = build->serve_args;
  }
  auto addr = target.Start(config, placement, work);
  if (!addr) return addr.error();
  const double ready_s = static_cast<double>(MonotonicNow() - starting) / 1e9;
  // The run's roots verify what the tool's own targets (embedded, nginx) serve; an external
  // arm is verified by its own CA or the system's trust store (ApplyArmTrust).
  std::string roots_pem;
  for (X509* root : anchors) {
    auto pem = CertPem(root);
    if (!pem) return pem.error();
    roots_pem += *pem;
  }
  // A connection to a server the tool runs is made to 0.0.0.0 when it listens on every
  // interface: the local host.
  LoadOptions options = MakeLoadOptions(s, *addr, s_.seed * 1'000'003ULL + t.seq);
  ApplyArmTrust(s, std::move(anchors), options);
  options.abort_fd = target.exit_fd();  // a server that dies ends the trial's load at once
  std::vector<std::string> netns;       // shard k loads from site k of the link
  for (size_t k = 0; net && barrier.serves_others() && k < net->sites().size(); ++k) {
    netns.push_back(net->client_netns_path(k));
  }
  auto start_at = barrier.Started(t.seq, addr->port(), roots_pem, netns);
  if (!start_at) {
    (void)target.Stop();
    return start_at.error();
  }
  if (*start_at == 0 && net && network.multi_site()) {
    *start_at = UnixNowNs() + kSiteStartMargin;  // every site's load starts at one instant
  }
  if (Status st = ApplyShard(s, *start_at, options); !st) {
    (void)target.Stop();
    return st.error();
  }
  row.mono_anchor_ns = MonotonicNow();
  row.wall_anchor_ns = UnixNowNs();
  Result<LoadResult> load = MakeError(ErrorKind::kSystem, "no load ran");
  if (!net) {
    load = RunLoad(options, o_.log);
  } else if (network.multi_site() && !o_.shard.sharded()) {
    load = RunSites(*net, options);
  } else {
    load = RunLoadIn(net->client_netns_path(), options);  // site 0 (shard 0's, when sharded)
  }
  // The target stays up until every shard has finished loading it.
  const Others others = barrier.Loaded(t.seq, MonotonicNow() + TrialWait(s));
  auto stats = target.Stop();
  if (!load) return load.error();
  out.load = std::move(*load);
  FinishRow(out);
  if (!others.invalid.empty()) {
    // The target had another load than the plan's while a shard was late or saturated: what
    // shard 0 measured of it is not the arm's either.
    const std::string why =
        fmt::format("shard(s) {} {}", fmt::join(others.invalid, ", "), kFollowersInvalid);
    fmt::print(o_.log, "  {}\n", why);
    row.reasons.push_back(why);
  }
  if (!others.lost.empty()) {
    fmt::print(o_.log, "  {}\n", others.lost);
    row.reasons.push_back(others.lost);
  }
  if (stats && !stats->died.empty()) {
    fmt::print(o_.log, "  target died: {}\n", stats->died);
    row.reasons.push_back("the target died during the trial: " + stats->died);
  }
  row.target.ready_s = ready_s;
  if (stats) {
    row.target = TargetRecordOf(*stats, ready_s);
    // The tool sees the CPU only of the servers it runs: an external server's is unknown
    // (null in the results), never 0.
    if (ToolRunsServer(s)) {
      row.server_cpu_s = stats->cpu_user_s + stats->cpu_sys_s;
      row.server_handshakes = stats->handshakes ? *stats->handshakes : ClientHandshakes(out.load);
    }
  } else {
    row.target.error = stats.error().message;
    row.reasons.push_back("the target did not stop cleanly: " + stats.error().message);
  }
  if (net) JudgeWire(s, network, *net, row);
  if (!s_.builds.empty()) row.target.build = BuildFacts(s.build);
  row.valid = row.reasons.empty();
  return out;  // row.load is set by the caller: `out` moves
}

// JudgeWire: the emulated link's record in the row, and whether it kept to its profile.
void TrialExecutor::JudgeWire(const ArmSettings& s, const NetworkProfile& network,
                              const link::Link& net, results::TrialRow& row) const {
  const link::MoverStats ms = net.stats();
  results::LinkRecord& wire = row.link.emplace();
  wire.stats = ms;
  wire.profile = network.name;
  wire.describe = network.link.Describe();
  if (net.sites().size() > 1) {
    // Each site's wire on its own (the checks below judge them together).
    wire.describe = NetworkFacts(s_)[network.name].describe;
    for (size_t k = 0; k < net.sites().size(); ++k) {
      wire.sites.push_back({.stats = net.site_stats(k),
                            .site = net.sites()[k].name,
                            .describe = net.sites()[k].profile.Describe()});
    }
  }
  // The emulated link is part of the apparatus, like the load generator's schedule: a
  // mover that released packets late (a descheduled CPU, a saturated machine) added delay
  // that is not in the profile. Its limit is its own (1 ms): a delay on the wire is in every
  // phase, where a late start is only in the total.
  const double limit_us = static_cast<double>(s.max_link_late_p99) / 1e3;
  if (ms.release_error_p99_us > limit_us) {
    row.reasons.push_back(
        fmt::format("emulated link late: packet release error p99 {:.1f} µs > {:.0f} µs",
                    ms.release_error_p99_us, limit_us));
  }
}

// RunLoadIn: the load generator on a thread that entered the client namespace (setns is
// per thread; the worker threads it starts inherit the namespace).
// ClientLibrary: the library context of an arm's providers, loaded once per run.
Result<const LibraryContext*> TrialExecutor::ClientLibrary(const ProviderSpec& spec) {
  const std::string key = spec.Label() + "\n" + spec.path;
  auto it = libraries_.find(key);
  if (it == libraries_.end()) {
    auto lc = LibraryContext::Load(spec, /*own=*/true);
    if (!lc) return lc.error();
    it = libraries_.emplace(key, std::move(*lc)).first;
  }
  return it->second.get();
}

// LinkSitesFor: the client sites of an arm's network as the link builds them: its own, or,
// in a sharded run, one per shard (shard k loads from site k; a network of several sites
// has as many as there are shards, CheckShardable saw to it).
std::vector<link::LinkSite> TrialExecutor::LinkSitesFor(const NetworkProfile& n) const {
  if (!o_.shard.sharded() || n.multi_site()) return n.LinkSites();
  std::vector<link::LinkSite> out;
  for (uint32_t k = 0; k < o_.shard.count; ++k) {
    out.push_back({fmt::format("{}-shard{}", n.name, k), n.link});
  }
  return out;
}

// RunSites: the arm's load from every site of the link at once, each site in its namespace
// as lane group k of the schedule (site k of M is "shard" k of M to the schedule, so the
// sites together make the arm's one schedule), united into one trial's load.
Result<LoadResult> TrialExecutor::RunSites(const link::Link& net, const LoadOptions& options) {
  const size_t n = net.sites().size();
  std::vector<LoadOptions> per_site(n, options);
  std::vector<std::optional<Result<LoadResult>>> got(n);
  std::vector<std::thread> threads;
  for (size_t k = 0; k < n; ++k) {
    per_site[k].shard = {static_cast<uint32_t>(k), static_cast<uint32_t>(n)};
    threads.emplace_back([&, k] {
      auto ns = link::ScopedNetns::Enter(net.client_netns_path(k));
      if (!ns) {
        got[k].emplace(ns.error());
        return;
      }
      // One live progress line: site 0's.
      got[k].emplace(RunLoad(per_site[k], k == 0 ? o_.log : nullptr));
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<LoadResult> parts;
  for (size_t k = 0; k < n; ++k) {
    if (!*got[k]) {
      Error e = got[k]->error();
      e.message = fmt::format("site {} ({}): {}", k, net.sites()[k].name, e.message);
      return e;
    }
    parts.push_back(std::move(**got[k]));
  }
  return UniteSites(std::move(parts), options);
}

Result<LoadResult> TrialExecutor::RunLoadIn(const std::string& netns, const LoadOptions& options) {
  std::optional<Result<LoadResult>> out;
  std::thread t([&] {
    auto ns = link::ScopedNetns::Enter(netns);
    if (!ns) {
      out.emplace(ns.error());
      return;
    }
    out.emplace(RunLoad(options, o_.log));
  });
  t.join();
  return std::move(*out);
}

}  // namespace pqc::scenario
