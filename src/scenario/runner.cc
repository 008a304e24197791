#include "scenario/runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include "records/summary.h"
#include "core/stop_signals.h"
#include "core/units.h"
#include "results/disk_space.h"
#include "results/run_reader.h"
#include "results/run_writer.h"
#include "scenario/arm_floor.h"
#include "scenario/preflight.h"
#include "scenario/rendezvous.h"
#include "scenario/run_facts.h"
#include "scenario/study_stop.h"
#include "scenario/trial_barrier.h"
#include "scenario/trial_executor.h"

namespace pqc::scenario {
namespace {

namespace fs = std::filesystem;

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

// Runner: the run's one loop, whatever its place among the shards: the barrier says which
// trial comes next, the executor measures it, the loop stores it.
class Runner {
 public:
  // `o`: the run's options, which a study that chooses its trial length changes (another
  // build's trial is asked with them).
  Runner(const Scenario& s, const Plan& p, RunOptions& o, std::string dir)
      : p_(p), arms_(p.arms), o_(o), dir_(std::move(dir)), exec_(s, o, dir_) {
    if (s.stop) stop_.emplace(p, *s.stop);
  }

  // study_stop: the stopping study's state, to be given the trials a resumed run stored.
  StudyStop* study_stop() { return stop_ ? &*stop_ : nullptr; }

  Result<RunOutcome> Run(results::RunWriter& writer, TrialBarrier& barrier, size_t stored,
                         std::set<uint32_t> failed_arms) {
    RunOutcome out;
    out.dir = dir_;
    stored_ = stored;
    const Nanos started = MonotonicNow();
    uint32_t looked = 0;  // blocks complete at the last look
    for (;;) {
      auto next = barrier.Next(failed_arms);
      if (!next) return next.error();
      if (next->trial == nullptr) {
        out.stopped = next->stopped;
        if (stop_ && out.stopped.empty()) {
          out.stop = stop_->Look(p_.trials.empty() ? 0 : p_.trials.back().block + 1,
                                 SecondsSince(started), o_.log);
        }
        break;
      }
      const PlannedTrial& t = *next->trial;
      const Arm& arm = arms_[t.arm - 1];
      if (signals_.Pending()) {
        out.interrupted = true;
        (void)barrier.Abandon(*next);  // no shard waits for this one
        break;
      }
      // A stopping study looks before every new block: the blocks before it are complete.
      if (stop_ && t.block > looked) {
        looked = t.block;
        StopVerdict v = stop_->Look(t.block, SecondsSince(started), o_.log);
        if (v.decision.stop()) {
          out.stop = std::move(v);
          (void)barrier.Abandon(*next);
          break;
        }
        if (auto sw = stop_->ChooseLength(v, o_.log)) {
          if (Status st = SwitchLength(writer, sw->duration_s, t.block, SecondsSince(started));
              !st) {
            (void)barrier.Abandon(*next);
            return st.error();
          }
        }
      }
      if (Status st = CheckRoom(arm, t); !st) {
        (void)barrier.Abandon(*next);
        return st.error();
      }
      fmt::print(o_.log, "[{}/{}] {} (block {}){}\n", next->position, p_.trials.size(), arm.label,
                 t.block + 1, o_.shard.sharded() ? " shard " + o_.shard.Label() : "");
      std::fflush(o_.log);
      const std::optional<TrialStart>& announced = next->announced;
      auto trial = !announced ? exec_.Run(arm, t, barrier)
                   : announced->skip
                       ? Result<TrialOutput>(MakeError(ErrorKind::kConfig, announced->text))
                       : exec_.Follow(arm, t, *announced);
      if (!trial) {
        // The arm cannot run here: record why, once, and go on with the other arms.
        const bool skipped = announced && announced->skip;
        const std::string why = announced
                                    ? trial.error().message
                                    : TrialExecutor::ExplainFailure(arm.settings, trial.error());
        fmt::print(o_.log, "  arm failed{}: {}\n", skipped ? " on shard 0" : "", why);
        if (Status st = barrier.Failed(*next, why); !st) return st.error();
        if (failed_arms.insert(arm.id).second) {
          if (Status st = writer.MarkArmFailed(arm.id, why); !st) return st.error();
          ++out.arms_failed;
          if (stop_) stop_->Failed(arm.id, o_.log);
        }
        if (!barrier.lost().empty()) break;
        continue;
      }
      if (Status st = barrier.Measured(t.seq, trial->row.valid); !st) return st.error();
      if (stop_) stop_->Add(t.arm, t.block, trial->row.valid, trial->load);
      auto interrupted = Record(writer, *trial, out);
      if (!interrupted) return interrupted.error();
      if (*interrupted || !barrier.lost().empty()) break;
    }
    if (!barrier.lost().empty()) out.stopped = barrier.lost();
    barrier.Finish();
    if (out.stop) {
      if (Status st = writer.RecordStop(RecordOf(*out.stop, p_, stop_->spec())); !st) {
        return st.error();
      }
    }
    // Complete: every planned trial ran, or belongs to an arm that cannot run here, or the
    // study stopped itself.
    out.complete = !out.interrupted && out.stopped.empty();
    return out;
  }

  static double SecondsSince(Nanos start) {
    return static_cast<double>(MonotonicNow() - start) / 1e9;
  }

 private:
  // SwitchLength: the study goes on with trials of `trial_s`; the `pilot_blocks` blocks
  // before are its pilot — stored, marked invalid (not pooled), the choice stored with the
  // run's options so that a resumed run and every reader see it.
  Status SwitchLength(results::RunWriter& writer, double trial_s, uint64_t pilot_blocks,
                      double pilot_elapsed_s) {
    const int64_t pilot_ns = arms_.front().settings.duration;
    const double pilot_s = static_cast<double>(pilot_ns) / 1e9;
    const auto ns = static_cast<int64_t>(std::llround(trial_s * 1e9));
    std::vector<std::pair<uint32_t, nlohmann::json>> settings;
    for (Arm& a : arms_) {
      a.settings.duration = ns;
      settings.emplace_back(a.id, ToJson(a.settings));
    }
    o_.options.set.push_back("duration=" + FormatDuration(ns));
    o_.options.pilot_blocks = pilot_blocks;
    o_.options.pilot_trial_s = pilot_s;
    const std::string reason = fmt::format("pilot at {} trials: the study chose trials of {}",
                                           FormatDuration(pilot_ns), FormatDuration(ns));
    if (Status st = writer.ChooseTrialLength(o_.options, reason, settings); !st) return st;
    stop_->Restart(trial_s, pilot_blocks, pilot_s, pilot_elapsed_s);
    return {};
  }

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

  void PrintTrialLine(const LoadSummary& s) {
    const PhaseStats& hs = s.phase(Phase::kHandshake);
    fmt::print(o_.log, "  {} connections, {} errors, handshake p50 {:.1f} us p99 {:.1f} us{}\n",
               s.connections, s.errors, hs.p50, hs.p99,
               s.valid() ? "" : fmt::format(" — INVALID: {}", fmt::join(s.invalid_reasons, "; ")));
    std::fflush(o_.log);
  }

  const Plan& p_;
  std::vector<Arm> arms_;  // the plan's, with the trial length a stopping study chose
  RunOptions& o_;
  std::string dir_;
  TrialExecutor exec_;
  // Blocked for the whole run and polled between trials, so that a Ctrl-C while a target
  // starts or a trial is being written never leaves half of either (RunLoad reports one
  // during a trial as `interrupted`).
  StopSignals signals_;
  size_t stored_ = 0;              // trials in the database (resumed ones included)
  uint64_t most_connections_ = 0;  // the largest trial stored so far, for CheckRoom
  std::optional<StudyStop> stop_;
};

// Meet: the run's barrier. Unsharded, the plan alone; sharded, shard 0 waits for every other
// shard at the rendezvous, the others join it (and measure their clock offset to it), before
// the first trial; the facts go into the run.
Result<std::unique_ptr<TrialBarrier>> Meet(const Plan& plan, const RunOptions& o,
                                           const PlanIdentity& identity,
                                           std::optional<results::ShardFacts>& facts) {
  const Nanos deadline = MonotonicNow() + o.rendezvous_timeout;
  const RendezvousKey* key = o.rendezvous_key ? &*o.rendezvous_key : nullptr;
  if (o.shard.leader()) {
    auto l = Leader::Open(*o.rendezvous, o.shard, identity, key, deadline, o.log);
    if (!l) return l.error();
    return LeaderBarrier(plan, std::move(*l));
  }
  auto f = Follower::Join(*o.rendezvous, o.serve_host, o.shard, identity, key, deadline);
  if (!f) return f.error();
  facts->clock_offset_ns = f->clock().offset_ns;
  facts->clock_rtt_ns = f->clock().rtt_ns;
  fmt::print(o.log, "shard {}: joined shard 0 at {}; clock offset {:+.3f} ms (±{:.3f} ms)\n",
             o.shard.Label(), o.rendezvous->ToString(),
             static_cast<double>(f->clock().offset_ns) / 1e6,
             static_cast<double>(f->clock().rtt_ns) / 2e6);
  std::fflush(o.log);
  return FollowerBarrier(plan, std::move(*f), o.log);
}

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
  if (scenario.stop) {
    return MakeError(ErrorKind::kUsage,
                     "--shard with --stop or [stop]: a study that stops itself decides on every "
                     "shard's connections, which only a merge brings together; shard a study of "
                     "fixed size ([trials] count), or run this one unsharded");
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

// GiveStoredTrials: a resumed stopping study's stored trials, so that its looks count them
// (its time budget counts from the resume).
Status GiveStoredTrials(results::Db& db, const std::set<uint32_t>& failed, StudyStop& stop,
                        std::FILE* log) {
  auto stored = results::ReadRun(db);
  if (!stored) return stored.error();
  for (const results::StoredTrial& t : stored->trials) {
    if (t.interrupted || !t.valid) continue;
    auto rec = results::ReadTrialRecords(db, t.id);
    if (!rec) return rec.error();
    stop.Add(t.arm, static_cast<uint32_t>(t.block), t.valid, rec->load);
  }
  for (uint32_t arm : failed) stop.Failed(arm, log);
  return {};
}

// CheckSamePlan: a resumed run's stored trials sit where this plan puts them; a plan ordered
// otherwise (another version's block order) would run some arms twice in a block and others
// never, so it is refused.
Status CheckSamePlan(const results::StoredRun& stored, const Plan& plan, const std::string& dir) {
  for (const results::StoredTrial& t : stored.trials) {
    const bool same = t.seq < plan.trials.size() && plan.trials[t.seq].arm == t.arm &&
                      plan.trials[t.seq].block == t.block;
    if (same) continue;
    return MakeError(
        ErrorKind::kUsage,
        fmt::format("--resume {}: its trial {} ran arm {} in block {}, where this "
                    "pqc-bench plans {}: the run was planned by another version "
                    "({} {}); resume it with that build",
                    dir, t.seq + 1, t.arm, t.block + 1,
                    t.seq < plan.trials.size() ? fmt::format("arm {}", plan.trials[t.seq].arm)
                                               : std::string("no trial"),
                    stored.info.tool_version, stored.info.git_commit));
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

Result<RunOutcome> RunPlan(const Scenario& scenario, const Plan& plan, const RunOptions& asked) {
  RunOptions options = asked;  // a stopping study may choose its trial length (Runner)
  if (Status st = CheckShardable(scenario, plan, options); !st) return st.error();
  if (Status st = Preflight(scenario, plan); !st) return st.error();
  auto dir = MakeRunDir(scenario, options);
  if (!dir) return dir.error();
  const std::string db_path = (fs::path(*dir) / "results.sqlite").string();
  std::set<uint32_t> done;
  std::set<uint32_t> failed;
  results::RunAsked stored_options;  // a resumed run's (its pilot, if it chose a length)
  std::optional<results::RunWriter> writer;
  std::unique_ptr<TrialBarrier> barrier;
  if (options.resume_dir.empty()) {
    results::RunInfo info;
    info.scenario = scenario.name;
    info.scenario_file = scenario.file;
    info.scenario_text = scenario.text;
    info.title = scenario.title;
    info.options = options.options;
    FillRunFacts(info);
    info.target = TargetKindsText(scenario.targets);
    info.networks = NetworkFacts(scenario);
    info.seed = scenario.seed;
    info.trials_planned = static_cast<uint32_t>(plan.trials.size());
    info.started = UtcIso(UnixNowNs());
    // The floors first: measured while nothing else of the run competes for the CPU.
    const int64_t floor_start = MonotonicNow();
    auto floors = MeasureArmFloors(plan.arms);
    if (!floors) return floors.error();
    fmt::print(options.log, "crypto floors: {} primitives measured in {:.1f} s\n",
               floors->primitives, static_cast<double>(MonotonicNow() - floor_start) / 1e9);
    for (const std::string& note : floors->notes) fmt::print(options.log, "  {}\n", note);
    info.speed = std::move(floors->speed);
    info.shard = options.shard;
    if (options.shard.sharded()) {
      info.shard_facts = results::ShardFacts{.rendezvous = options.rendezvous->ToString(),
                                             .boot_id = BootId(),
                                             .max_start_late_ns = options.max_start_late};
    }
    if (options.shard.sharded()) {
      auto met = Meet(plan, options, IdentityOf(scenario, plan, options, info), info.shard_facts);
      if (!met) return met.error();
      barrier = std::move(*met);
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
    if (Status st = CheckSamePlan(*stored, plan, options.resume_dir); !st) return st.error();
    stored_options = stored->info.options;
    for (const auto& t : stored->trials) done.insert(t.seq);
    for (const auto& a : stored->arms) {
      if (a.status == results::ArmStatus::kFailed) failed.insert(a.id);
    }
  }
  if (!barrier) barrier = SoloBarrier(plan, done);
  Runner runner(scenario, plan, options, *dir);
  if (StudyStop* stop = runner.study_stop(); stop != nullptr && !done.empty()) {
    if (stored_options.pilot_blocks > 0) {
      // The length was chosen before the interruption: the arms have it (the stored --set),
      // the pilot stays out, and the budgets count from the resume.
      stop->Restart(static_cast<double>(plan.arms.front().settings.duration) / 1e9,
                    stored_options.pilot_blocks, stored_options.pilot_trial_s, 0);
      options.options.pilot_blocks = stored_options.pilot_blocks;
      options.options.pilot_trial_s = stored_options.pilot_trial_s;
    }
    if (Status st = GiveStoredTrials(writer->db(), failed, *stop, options.log); !st) {
      return st.error();
    }
  }
  auto out = runner.Run(*writer, *barrier, done.size(), std::move(failed));
  if (!out) {
    (void)writer->Finish(UtcIso(UnixNowNs()), false);
    return out.error();
  }
  if (Status st = writer->Finish(UtcIso(UnixNowNs()), out->complete); !st) return st.error();
  return out;
}

}  // namespace pqc::scenario
