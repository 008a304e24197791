#include "scenario/runner.h"

#include <fmt/format.h>
#include <signal.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "client/load_runner.h"
#include "client/site_union.h"
#include "client/summary.h"
#include "client/summary_output.h"
#include "core/stop_signals.h"
#include "link/link.h"
#include "link/netns.h"
#include "results/disk_space.h"
#include "results/run_reader.h"
#include "results/run_writer.h"
#include "scenario/arm_floor.h"
#include "scenario/arm_options.h"
#include "scenario/cert_store.h"
#include "scenario/merge.h"
#include "scenario/preflight.h"
#include "scenario/rendezvous.h"
#include "scenario/run_facts.h"
#include "target/target.h"
#include "tls/cert_chain.h"
#include "tls/probe.h"

namespace pqc::scenario {
namespace {

namespace fs = std::filesystem;

// kSiteStartMargin: from the start barrier's choice to the instant every site's load starts
// (each site's threads must have entered their namespace and be waiting by then).
constexpr Nanos kSiteStartMargin = 150'000'000;

Result<std::unique_ptr<target::Target>> MakeTarget(const ArmSettings& s, const RunOptions& o) {
  if (s.target == TargetKind::kEmbedded) return target::MakeEmbeddedTarget(o.self_exe);
  if (s.target == TargetKind::kNginx) {
    if (o.nginx_exe.empty()) {
      return MakeError(
          ErrorKind::kConfig,
          "target nginx: no nginx binary known (run scripts/setup.sh peers, which builds "
          "it, and pass --nginx or set PQC_NGINX)");
    }
    return target::MakeNginxTarget(o.nginx_exe);
  }
  if (s.target == TargetKind::kHaproxy) {
    if (o.haproxy_exe.empty()) {
      return MakeError(ErrorKind::kConfig,
                       "target haproxy: no HAProxy binary known (run scripts/setup.sh peers, which "
                       "builds it, and pass --haproxy or set PQC_HAPROXY)");
    }
    return target::MakeHaproxyTarget(o.haproxy_exe);
  }
  auto addr = ParseAddress(s.address);
  if (!addr) return addr.error();
  return target::MakeExternalTarget(*addr);
}

// ExplainFailure: why an arm could not run; for a certificate type the TLS layer refuses,
// the three layers of the probe say how far it gets (SLH-DSA: primitive and X.509 work).
std::string ExplainFailure(const ArmSettings& s, const Error& e) {
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

Result<std::string> MakeRunDir(const Scenario& s, const RunOptions& o) {
  if (!o.resume_dir.empty()) return o.resume_dir;
  std::error_code ec;
  fs::create_directories(o.results_root, ec);
  const std::string suffix =
      o.shard.sharded() ? fmt::format("-shard-{}-of-{}", o.shard.index, o.shard.count) : "";
  const std::string dir =
      (fs::path(o.results_root) / fmt::format("{}-{}{}", UtcCompact(UnixNowNs()), s.name, suffix))
          .string();
  if (ec || !fs::create_directory(dir, ec) || ec) {
    return MakeError(ErrorKind::kIo,
                     fmt::format("cannot create the results directory {}: {} (choose a writable "
                                 "place with --results DIR)",
                                 dir, ec ? ec.message() : "it exists already"));
  }
  return dir;
}

results::TargetRecord TargetRecordOf(const target::TargetStats& t) {
  return {.cpu_user_s = t.cpu_user_s,
          .cpu_sys_s = t.cpu_sys_s,
          .wall_s = t.wall_s,
          .handshakes = t.handshakes,
          .log = t.log_path,
          .details = t.details};
}

uint64_t ClientHandshakes(const LoadResult& r) {
  uint64_t n = 0;
  for (const ConnectionRecord& c : r.connections) n += c.tls_done != 0 ? 1 : 0;
  return n;
}

class Runner {
 public:
  Runner(const Scenario& s, const Plan& p, const RunOptions& o, std::string dir)
      : s_(s), p_(p), o_(o), dir_(std::move(dir)), certs_((fs::path(dir_) / "certs").string()) {}

  Result<RunOutcome> Run(results::RunWriter& writer, const std::set<uint32_t>& done,
                         std::set<uint32_t> failed_arms) {
    if (follower_) return FollowRun(writer);
    RunOutcome out;
    out.dir = dir_;
    const size_t total = p_.trials.size();
    size_t finished = done.size();
    stored_ = done.size();
    for (const PlannedTrial& t : p_.trials) {
      if (done.count(t.seq) > 0) continue;
      const Arm& arm = p_.arms[t.arm - 1];
      if (failed_arms.count(arm.id) > 0) continue;
      if (signals_.Pending()) {
        out.interrupted = true;
        break;
      }
      if (Status st = CheckRoom(arm, t); !st) return st.error();
      fmt::print(o_.log, "[{}/{}] {} (block {}){}\n", finished + 1, total, arm.label, t.block + 1,
                 o_.shard.sharded() ? " shard " + o_.shard.Label() : "");
      std::fflush(o_.log);
      auto target = TargetFor(arm.settings);
      if (!target) return target.error();
      auto trial = RunTrial(**target, arm, t);
      if (!trial) {
        // The arm cannot run here: record why, once, and go on with the other arms.
        const std::string why = ExplainFailure(arm.settings, trial.error());
        fmt::print(o_.log, "  arm failed: {}\n", why);
        if (leader_) {
          if (Status st = leader_->Skip(t.seq, why); !st) return st.error();
        }
        if (Status st = writer.MarkArmFailed(arm.id, why); !st) return st.error();
        failed_arms.insert(arm.id);
        ++out.arms_failed;
        if (!lost_.empty()) break;
        continue;
      }
      auto interrupted = Record(writer, *trial, out);
      if (!interrupted) return interrupted.error();
      ++finished;
      if (*interrupted) break;
      if (!lost_.empty()) break;
    }
    // Complete: every planned trial ran, or belongs to an arm that cannot run here.
    if (!lost_.empty()) {
      out.stopped = lost_;
      leader_->Stop(lost_);
    } else if (leader_) {
      leader_->End();
    }
    out.complete = !out.interrupted && out.stopped.empty();
    return out;
  }

  // FollowRun: a shard other than 0 runs the trials shard 0 announces, in its order (shard 0
  // announces no more trials of an arm that failed there, and says SKIP once for it). Every
  // announced trial is answered with DONE, also when this shard could not run it, so that
  // shard 0 never waits for a trial no one is measuring.
  Result<RunOutcome> FollowRun(results::RunWriter& writer) {
    RunOutcome out;
    out.dir = dir_;
    Nanos wait = 0;
    for (const Arm& a : p_.arms) wait = std::max(wait, TrialWait(a.settings));
    std::set<uint32_t> failed_arms;
    for (;;) {
      auto start = follower_->Next(MonotonicNow() + wait);
      if (!start) return start.error();
      if (start->end) break;
      if (start->stop) {
        out.stopped = "shard 0 stopped the study: " + start->text;
        fmt::print(o_.log, "{}\n", out.stopped);
        break;
      }
      if (start->seq >= p_.trials.size() || p_.trials[start->seq].seq != start->seq) {
        return MakeError(ErrorKind::kConfig,
                         fmt::format("shard 0 announced trial {}, which this shard's plan of {} "
                                     "trials does not have: the shards' plans differ",
                                     start->seq, p_.trials.size()));
      }
      const PlannedTrial& t = p_.trials[start->seq];
      const Arm& arm = p_.arms[t.arm - 1];
      if (Status st = CheckRoom(arm, t); !st) {
        (void)follower_->Done(t.seq, false);  // shard 0 must not wait for this shard
        return st.error();
      }
      fmt::print(o_.log, "[{}/{}] {} (block {}) shard {}\n", t.seq + 1, p_.trials.size(), arm.label,
                 t.block + 1, o_.shard.Label());
      std::fflush(o_.log);
      auto trial = start->skip ? Result<TrialOutput>(MakeError(ErrorKind::kConfig, start->text))
                               : FollowTrial(arm, t, *start);
      if (!trial) {
        const std::string why = start->skip ? start->text : trial.error().message;
        fmt::print(o_.log, "  arm failed{}: {}\n", start->skip ? " on shard 0" : "", why);
        if (!start->skip) {
          if (Status st = follower_->Done(t.seq, false); !st) return st.error();
        }
        if (failed_arms.insert(arm.id).second) {
          if (Status st = writer.MarkArmFailed(arm.id, why); !st) return st.error();
          ++out.arms_failed;
        }
        continue;
      }
      if (Status st = follower_->Done(t.seq, trial->row.valid); !st) return st.error();
      auto interrupted = Record(writer, *trial, out);
      if (!interrupted) return interrupted.error();
      if (*interrupted) break;
    }
    out.complete = !out.interrupted && out.stopped.empty();
    return out;
  }

  // Meet: shard 0 waits for every other shard at the rendezvous, the others join it (and
  // measure their clock offset to it), before the first trial; the facts go into the run.
  Status Meet(const PlanIdentity& identity, std::optional<results::ShardFacts>& facts) {
    if (!o_.shard.sharded()) return {};
    const Nanos deadline = MonotonicNow() + o_.rendezvous_timeout;
    const RendezvousKey* key = o_.rendezvous_key ? &*o_.rendezvous_key : nullptr;
    if (o_.shard.leader()) {
      auto l = Leader::Open(*o_.rendezvous, o_.shard, identity, key, deadline, o_.log);
      if (!l) return l.error();
      leader_.emplace(std::move(*l));
    } else {
      const SocketAddress& serve = o_.serve_address.len > 0 ? o_.serve_address : *o_.rendezvous;
      auto f = Follower::Join(*o_.rendezvous, serve, o_.shard, identity, key, deadline);
      if (!f) return f.error();
      follower_.emplace(std::move(*f));
      facts->clock_offset_ns = follower_->clock().offset_ns;
      facts->clock_rtt_ns = follower_->clock().rtt_ns;
      fmt::print(o_.log, "shard {}: joined shard 0 at {}; clock offset {:+.3f} ms (±{:.3f} ms)\n",
                 o_.shard.Label(), o_.rendezvous->ToString(),
                 static_cast<double>(follower_->clock().offset_ns) / 1e6,
                 static_cast<double>(follower_->clock().rtt_ns) / 2e6);
      std::fflush(o_.log);
    }
    return {};
  }

 private:
  struct TrialOutput {
    results::TrialRow row;
    LoadResult load;
  };

  // Record: a finished trial into the database and the outcome, its line printed; whether it
  // was interrupted (the run then stops).
  Result<bool> Record(results::RunWriter& writer, TrialOutput& trial, RunOutcome& out) {
    trial.row.load = &trial.load;
    if (auto id = writer.WriteTrial(trial.row); !id) {
      if (id.error().kind != ErrorKind::kNoSpace) return id.error();
      // The estimate before the trial fell short: it is lost, the ones before it are not.
      const uint64_t n = trial.load.connections.size();
      most_connections_ = std::max(most_connections_, n);
      return results::NoRoom(
          dir_, results::TrialBytes(n), stored_,
          fmt::format("trial {} of {} ({} connections measured, not stored: {})", trial.row.seq + 1,
                      p_.trials.size(), n, id.error().message));
    }
    ++stored_;
    most_connections_ = std::max<uint64_t>(most_connections_, trial.load.connections.size());
    ++out.trials_run;
    if (!trial.row.valid) ++out.trials_invalid;
    PrintTrialLine(trial.row.summary);
    out.interrupted = out.interrupted || trial.row.interrupted;
    return trial.row.interrupted;
  }

  // CheckRoom: before a trial is measured, whether the results directory can store it (a
  // trial measured only to be lost on a full disk wastes its minutes): its expected
  // connections — the open-loop schedule's share of this shard, or the most any trial of the
  // run has had (a closed loop's count is the server's pace) — as results::TrialBytes.
  Status CheckRoom(const Arm& arm, const PlannedTrial& t) {
    const ArmSettings& s = arm.settings;
    double expected = 0;
    if (s.closed_loop == 0) {
      expected = s.rate * static_cast<double>(s.warmup + s.duration) / 1e9 /
                 static_cast<double>(std::max<uint32_t>(1, o_.shard.count));
    }
    // A keep-alive connection's further requests are rows too (about half a connection's).
    expected *= std::max(1.0, static_cast<double>(s.requests) / 2.0);
    const uint64_t needed =
        results::TrialBytes(std::max(static_cast<uint64_t>(expected), most_connections_));
    auto free = results::FreeBytes(dir_);
    if (!free || *free >= needed) return {};  // unknown: the write itself will tell
    return results::NoRoom(
        dir_, needed, stored_,
        fmt::format("trial {} of {} ({})", t.seq + 1, p_.trials.size(), arm.label));
  }

  // TrialWait: how long a shard waits for the next announcement or for the others to finish
  // one trial: the trial itself, a drain, and time for a target to start and a trial of a
  // million connections to be written.
  static Nanos TrialWait(const ArmSettings& s) {
    return s.warmup + s.duration + 2 * s.timeout + 600'000'000'000;
  }

  // FollowTrial: a shard other than 0 loads the target shard 0 started, from the instant it
  // announced, and records the trial as its own (the server's CPU is shard 0's to record).
  Result<TrialOutput> FollowTrial(const Arm& arm, const PlannedTrial& t, const TrialStart& start) {
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
    SocketAddress addr = ToolRunsServer(s) ? start.target : *ParseAddress(s.address);
    if (!start.netns.empty()) {
      // Shard 0's emulated link: this shard's clients are one of its sites, on this machine.
      auto in_link = ParseAddress(fmt::format("{}:{}", link::kServerIp, start.target.port()));
      if (!in_link) return in_link.error();
      addr = *in_link;
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
      for (ConnectionRecord& c : out.load.connections)
        c.site = static_cast<uint8_t>(o_.shard.index);
    }
    FinishRow(out);
    row.target.run_by = "shard 0";
    row.valid = row.reasons.empty();
    return out;
  }

  // ApplyShard: this shard's share of the arm and its start barrier, and the providers.
  Status ApplyShard(const ArmSettings& s, int64_t start_at, LoadOptions& options) {
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

  // FinishRow: what every trial row takes from its load.
  static void FinishRow(TrialOutput& out) {
    results::TrialRow& row = out.row;
    row.ended = UtcIso(UnixNowNs());
    row.summary = Summarize(out.load);
    row.reasons = row.summary.invalid_reasons;
    row.interrupted = out.load.interrupted;
    row.client_cpu_s = out.load.cpu_user_s + out.load.cpu_sys_s;
  }

  // TargetFor: one driver per target kind, made when an arm first needs it (a matrix may
  // compare the embedded server with nginx arm by arm).
  Result<target::Target*> TargetFor(const ArmSettings& s) {
    std::string key(TargetKindName(s.target));
    if (!ToolRunsServer(s)) key += " " + s.address;
    auto it = targets_.find(key);
    if (it == targets_.end()) {
      auto made = MakeTarget(s, o_);
      if (!made) return made.error();
      it = targets_.emplace(key, std::move(*made)).first;
    }
    return it->second.get();
  }

  Result<TrialOutput> RunTrial(target::Target& target, const Arm& arm, const PlannedTrial& t) {
    const ArmSettings& s = arm.settings;
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
      placement.listen_host = net->server_ip();
    } else if (leader_) {
      placement.listen_host = o_.serve_host;  // where the other shards reach it
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
    auto addr = target.Start(
        ToolRunsServer(s) ? MakeServerConfig(s, std::move(certs)) : target::ServerConfig{},
        placement, work);
    if (!addr) return addr.error();
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
    int64_t start_at = 0;
    if (leader_) {
      start_at = UnixNowNs() + o_.start_margin;
      std::vector<std::string> netns;  // shard k loads from site k of the link
      for (size_t k = 0; net && k < net->sites().size(); ++k) {
        netns.push_back(net->client_netns_path(k));
      }
      if (Status st = leader_->Announce(t.seq, start_at, addr->port(), roots_pem, netns); !st) {
        (void)target.Stop();
        return st.error();
      }
    } else if (net && network.multi_site()) {
      start_at = UnixNowNs() + kSiteStartMargin;  // every site's load starts at one instant
    }
    if (Status st = ApplyShard(s, start_at, options); !st) return st.error();
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
    std::optional<Leader::Finished> others;
    if (leader_) {
      others = leader_->WaitDone(t.seq, MonotonicNow() + TrialWait(s));
      // A lost shard (killed, stalled past the trial's time, its host gone): the others alone
      // would load every later trial with less than the plan, so the study stops after this
      // one, which is kept, invalid, with what every remaining shard measured.
      std::vector<std::string> lost;
      for (const auto& [shard, why] : others->lost) {
        lost.push_back(fmt::format("shard {} ({})", shard, why));
      }
      if (!lost.empty()) {
        lost_ = fmt::format(
            "lost {} in trial {}: without it the other shards would load the "
            "target with less than the plan",
            fmt::join(lost, ", "), t.seq + 1);
      }
    }
    auto stats = target.Stop();
    if (!load) return load.error();
    out.load = std::move(*load);
    FinishRow(out);
    if (others && !others->invalid.empty()) {
      // The target had another load than the plan's while a shard was late or saturated: what
      // shard 0 measured of it is not the arm's either.
      const std::string why =
          fmt::format("shard(s) {} {}", fmt::join(others->invalid, ", "), kFollowersInvalid);
      fmt::print(o_.log, "  {}\n", why);
      row.reasons.push_back(why);
    }
    if (!lost_.empty()) {
      fmt::print(o_.log, "  {}\n", lost_);
      row.reasons.push_back(lost_);
    }
    if (stats && !stats->died.empty()) {
      fmt::print(o_.log, "  target died: {}\n", stats->died);
      row.reasons.push_back("the target died during the trial: " + stats->died);
    }
    if (stats) {
      row.target = TargetRecordOf(*stats);
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
    if (net) {
      const link::MoverStats ms = net->stats();
      results::LinkRecord& wire = row.link.emplace();
      wire.stats = ms;
      wire.profile = network.name;
      wire.describe = network.link.Describe();
      if (net->sites().size() > 1) {
        // Each site's wire on its own (the checks below judge them together).
        wire.describe = NetworkFacts(s_)[network.name].describe;
        for (size_t k = 0; k < net->sites().size(); ++k) {
          wire.sites.push_back({.stats = net->site_stats(k),
                                .site = net->sites()[k].name,
                                .describe = net->sites()[k].profile.Describe()});
        }
      }
      // The emulated link is part of the apparatus, like the load generator's schedule: a
      // mover that released packets late (a descheduled CPU, a saturated machine) added delay
      // that is not in the profile, so the same limit applies to its lateness.
      const double limit_us = static_cast<double>(s.max_lag_p99) / 1e3;
      if (ms.release_error_p99_us > limit_us) {
        row.reasons.push_back(
            fmt::format("emulated link late: packet release error p99 {:.1f} µs > {:.0f} µs",
                        ms.release_error_p99_us, limit_us));
      }
    }
    row.valid = row.reasons.empty();
    return out;  // row.load is set by the caller: `out` moves
  }

  // RunLoadIn: the load generator on a thread that entered the client namespace (setns is
  // per thread; the worker threads it starts inherit the namespace).
  // ClientLibrary: the library context of an arm's providers, loaded once per run.
  Result<const LibraryContext*> ClientLibrary(const ProviderSpec& spec) {
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
  std::vector<link::LinkSite> LinkSitesFor(const NetworkProfile& n) const {
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
  Result<LoadResult> RunSites(const link::Link& net, const LoadOptions& options) {
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

  Result<LoadResult> RunLoadIn(const std::string& netns, const LoadOptions& options) {
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

  void PrintTrialLine(const LoadSummary& s) {
    const PhaseStats& hs = s.phase(Phase::kHandshake);
    fmt::print(o_.log, "  {} connections, {} errors, handshake p50 {:.1f} us p99 {:.1f} us{}\n",
               s.connections, s.errors, hs.p50, hs.p99,
               s.valid() ? "" : fmt::format(" — INVALID: {}", fmt::join(s.invalid_reasons, "; ")));
    std::fflush(o_.log);
  }

  const Scenario& s_;
  const Plan& p_;
  const RunOptions& o_;
  std::string dir_;
  CertStore certs_;
  std::map<std::string, std::unique_ptr<target::Target>> targets_;
  std::map<std::string, std::unique_ptr<LibraryContext>> libraries_;  // by providers' label
  std::optional<Leader> leader_;                                      // shard 0 of several
  std::optional<Follower> follower_;                                  // any other shard
  // Blocked for the whole run and polled between trials, so that a Ctrl-C while a target
  // starts or a trial is being written never leaves half of either (RunLoad reports one
  // during a trial as `interrupted`).
  StopSignals signals_;
  size_t stored_ = 0;              // trials in the database (resumed ones included)
  uint64_t most_connections_ = 0;  // the largest trial stored so far, for CheckRoom
  std::string lost_;  // shard 0: the shards lost in the last trial, and why (the study stops)
};

// CheckShardable: what a sharded run cannot do (yet): resume (the shards would have to agree
// on what is missing), and emulated links, whose namespaces are this process's own: the other
// shards could not reach a target inside them.
Status CheckShardable(const Scenario& scenario, const Plan& plan, const RunOptions& o) {
  if (!o.shard.sharded()) return {};
  if (!o.rendezvous) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--shard {}: the shards need --rendezvous HOST:PORT (shard 0 "
                                 "listens there, the others join it)",
                                 o.shard.Label()));
  }
  if (!o.resume_dir.empty()) {
    return MakeError(ErrorKind::kUsage,
                     "--resume of a shard: a sharded study cannot be resumed; run it again");
  }
  for (const Arm& a : plan.arms) {
    const NetworkProfile& n = scenario.networks.at(a.settings.network);
    if (n.multi_site() && n.sites.size() != o.shard.count) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--shard {}: arm '{}' runs on network '{}' of {} sites; "
                                   "sharded, each shard loads from one site, so it needs {} "
                                   "shards (or run it unsharded: one process loads from every "
                                   "site)",
                                   o.shard.Label(), a.label, a.settings.network, n.sites.size(),
                                   n.sites.size()));
    }
    if (n.emulated() && !ToolRunsServer(a.settings)) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--shard: arm '{}' runs an external target on the emulated "
                                   "network '{}'; shard it on loopback (--only network=loopback)",
                                   a.label, a.settings.network));
    }
  }
  return {};
}

PlanIdentity IdentityOf(const Scenario& scenario, const Plan& plan, const RunOptions& o,
                        const results::RunInfo& facts) {
  std::string arms;
  for (const Arm& a : plan.arms) arms += ToJson(a.settings).dump() + "\n";
  for (const PlannedTrial& t : plan.trials)
    arms += fmt::format("{} {} {}\n", t.arm, t.block, t.seq);
  std::string version = facts.tool_version + "+" + facts.git_commit;
  for (char& c : version) c = c == ' ' || c == '=' ? '_' : c;
  return {.version = version,
          .scenario = Digest(scenario.text),
          .options = Digest(json_fields::Writer::Value(o.options).dump()),
          .plan = Digest(arms)};
}

}  // namespace

Result<RunOutcome> RunPlan(const Scenario& scenario, const Plan& plan, const RunOptions& options) {
  if (Status st = CheckShardable(scenario, plan, options); !st) return st.error();
  if (Status st = Preflight(scenario, plan); !st) return st.error();
  auto dir = MakeRunDir(scenario, options);
  if (!dir) return dir.error();
  const std::string db_path = (fs::path(*dir) / "results.sqlite").string();
  std::set<uint32_t> done;
  std::set<uint32_t> failed;
  std::optional<results::RunWriter> writer;
  Runner runner(scenario, plan, options, *dir);
  if (options.resume_dir.empty()) {
    results::RunInfo info;
    info.scenario = scenario.name;
    info.scenario_file = scenario.file;
    info.scenario_text = scenario.text;
    info.title = scenario.title;
    info.options = options.options;
    FillRunFacts(info);
    info.target = scenario.target;
    info.networks = NetworkFacts(scenario);
    info.seed = scenario.seed;
    info.trials_planned = static_cast<uint32_t>(plan.trials.size());
    info.started = UtcIso(UnixNowNs());
    // The floors first: measured while nothing else of the run competes for the CPU.
    const int64_t floor_start = MonotonicNow();
    auto floors = MeasureArmFloors(plan.arms);
    if (!floors) return floors.error();
    fmt::print(options.log, "crypto floors: {} primitives measured in {:.1f} s\n",
               floors->speed.is_null() ? 0 : floors->speed["entries"].size(),
               static_cast<double>(MonotonicNow() - floor_start) / 1e9);
    for (const std::string& note : floors->notes) fmt::print(options.log, "  {}\n", note);
    info.speed = std::move(floors->speed);
    info.shard = options.shard;
    if (options.shard.sharded()) {
      info.shard_facts = results::ShardFacts{.rendezvous = options.rendezvous->ToString(),
                                             .boot_id = BootId(),
                                             .max_start_late_ns = options.max_start_late};
    }
    if (Status st = runner.Meet(IdentityOf(scenario, plan, options, info), info.shard_facts); !st) {
      return st.error();
    }
    std::vector<results::ArmRow> arms;
    for (size_t i = 0; i < plan.arms.size(); ++i) {
      const Arm& a = plan.arms[i];
      nlohmann::ordered_json factors = nlohmann::ordered_json::object();
      for (const auto& [k, v] : a.factors) factors[k] = v;
      arms.push_back({a.id, a.label, std::move(factors), ToJson(a.settings), floors->arms[i]});
    }
    auto w = results::RunWriter::Create(db_path, info, arms);
    if (!w) return w.error();
    writer.emplace(std::move(*w));
  } else {
    auto w = results::RunWriter::Reopen(db_path);
    if (!w && w.error().kind == ErrorKind::kNoSpace) {
      return results::NoRoom(*dir, results::kTrialFileBytes, results::kUnknownStored,
                             "reopening the run to resume it");
    }
    if (!w) return w.error();
    writer.emplace(std::move(*w));
    auto stored = results::ReadRun(writer->db());
    if (!stored) return stored.error();
    for (const auto& t : stored->trials) done.insert(t.seq);
    for (const auto& a : stored->arms) {
      if (a.status == results::ArmStatus::kFailed) failed.insert(a.id);
    }
  }
  auto out = runner.Run(*writer, done, failed);
  if (!out) {
    (void)writer->Finish(UtcIso(UnixNowNs()), false);
    return out.error();
  }
  if (Status st = writer->Finish(UtcIso(UnixNowNs()), out->complete); !st) return st.error();
  return out;
}

}  // namespace pqc::scenario
