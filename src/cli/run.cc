// run — `pqc-bench run SCENARIO.toml`: a whole study. Parses and plans the scenario (every
// error before the first connection), runs the trials in interleaved order into a new
// results directory, then prints the summary table and writes summary.json, summary.md
// and report.html next to results.sqlite. `--resume DIR` finishes an interrupted run.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/provider_flags.h"
#include "cli/serve_peer.h"
#include "cli/shard_flags.h"
#include "cli/study_output.h"
#include "core/paths.h"
#include "results/run_reader.h"
#include "scenario/merge.h"
#include "scenario/plan.h"
#include "scenario/run_facts.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"
#include "scenario/study_stop.h"

namespace pqc::cli {
namespace {

// SelfExe: the binary the embedded target is started from. /proc/self/exe (which a forked
// child resolves to the same file) rather than its path: a rebuild or upgrade that replaces
// the file mid-run must not start another version of the server, or fail to start one while
// the linker is writing it.
std::string SelfExe() {
  return "/proc/self/exe";
}

// ResumeScenario: the scenario exactly as the interrupted run had it (stored text and
// options), so that the plan and its order are the same.
Result<scenario::Scenario> ResumeScenario(const std::string& dir, scenario::ParseOptions& po) {
  auto db = results::OpenResults(dir);
  if (!db) return db.error();
  auto run = results::ReadRun(*db);
  if (!run) return run.error();
  return scenario::StoredScenario(run->info, po);
}

// RunFlags: every flag of run.
struct RunFlags {
  std::string file, results_root = "results", resume, nginx, haproxy, external, server_name, ca;
  std::string as_build;
  std::vector<std::string> sets, only, builds;
  uint32_t trials = 0;
  bool full = false, strict = false, stop = false;
  ProviderFlags providers;
  ShardFlags shard;
};

void AddRunFlags(CLI::App& app, RunFlags& f) {
  auto* file_opt = app.add_option("scenario", f.file, "scenario file (scenarios/*.toml)");
  app.add_flag("--full", f.full, "the original study's scale (the scenario's [full] section)");
  app.add_option("--set", f.sets, "override a setting for every arm, KEY=VALUE (e.g. duration=5s)");
  auto* only_opt = app.add_option("--only", f.only,
                                  "run only the arms whose matrix factor has one of these values, "
                                  "FACTOR=VALUE[,VALUE…] (e.g. network=loopback; repeatable)");
  auto* build_opt = app.add_option(
      "--build", f.builds,
      "another pqc-bench as arms of this run, NAME=PATH (repeatable; the matrix gains "
      "build = [NAME, …], the first the baseline): builds compared block by block, "
      "e.g. --build openssl35=build/src/pqc-bench --build "
      "openssl36=build-openssl-3.6/src/pqc-bench");
  app.add_flag("--stop", f.stop,
               "stop once every one-factor comparison is answered (the scenario's [stop], else "
               "p50 ±2 % and p99 ±10 % of handshake and total within 10 minutes; "
               "docs/cli.md)");
  app.add_option("--trials", f.trials,
                 "trials per arm (overrides the scenario; with --stop or [stop], the most "
                 "blocks)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--results", f.results_root, "directory that receives the run's directory")
      ->capture_default_str();
  auto* resume_opt =
      app.add_option("--resume", f.resume, "finish an interrupted run (its results directory)");
  app.add_option("--nginx", f.nginx,
                 "nginx binary for target = \"nginx\" (default: $PQC_NGINX, else the build's)");
  app.add_option("--haproxy", f.haproxy,
                 "HAProxy binary for target = \"haproxy\" (default: $PQC_HAPROXY, else the "
                 "build's)");
  auto* target_opt = app.add_option(
      "--target", f.external,
      "run every arm against your own server at HOST:PORT (target external; names are not "
      "resolved)");
  app.add_option("--server-name", f.server_name,
                 "with --target: SNI, Host and the name its certificate must carry (default: the "
                 "address's host)")
      ->needs(target_opt);
  app.add_option("--ca", f.ca,
                 "with --target: PEM file of the CA that verifies the server (default: the "
                 "system's trust store)")
      ->needs(target_opt);
  AddProviderFlags(app, f.providers);
  app.add_flag("--strict", f.strict, "exit 1 when a trial is invalid or an arm failed");
  AddShardFlags(app, f.shard, /*run=*/true);
  // Not for users: the runner of a study whose arms are builds starts another build with it
  // to measure one trial of that build's arm (scenario/build_trial.h). Hidden from --help.
  app.add_option("--as-build", f.as_build,
                 "measure as the scenario's [builds.NAME] (set by the run that started this "
                 "one)")
      ->group("");
  resume_opt->excludes(file_opt);
  resume_opt->excludes(only_opt);   // a resumed run selects the arms it selected
  resume_opt->excludes(build_opt);  // and measures them with the builds it stored
}

// ParseOptionsOf: --target and its companions are settings like any other (stored, and
// resumed, as --set).
scenario::ParseOptions ParseOptionsOf(const RunFlags& f) {
  std::vector<std::string> sets = f.providers.AsSettings();  // --set after them wins
  sets.insert(sets.end(), f.sets.begin(), f.sets.end());
  if (!f.external.empty()) {
    sets.insert(sets.end(), {"target=external", "address=" + f.external});
    if (!f.server_name.empty()) sets.push_back("server_name=" + f.server_name);
    // Absolute: the stored setting must name the same file when the run is resumed elsewhere.
    if (!f.ca.empty()) sets.push_back("ca=" + AbsolutePath(f.ca));
  }
  // Absolute: a resumed run (stored options) must start the same binaries from anywhere.
  std::vector<std::string> builds;
  for (const std::string& b : f.builds) {
    const size_t eq = b.find('=');
    builds.push_back(
        eq == std::string::npos ? b : b.substr(0, eq + 1) + AbsolutePath(b.substr(eq + 1)));
  }
  return {.full = f.full,
          .overrides = sets,
          .trials = f.trials,
          .stop = f.stop,
          .only = f.only,
          .builds = builds};
}

// CheckArmBuild: an arm's build can measure it here: its binaries exist, its serve_args go to
// an embedded server, and another pqc_bench is not asked of a sharded run (each shard would
// have to start it at the rendezvous's instant).
Status CheckArmBuild(const RunFlags& f, const scenario::Arm& a, const scenario::Build* build) {
  if (build == nullptr) return {};
  if (Status st = scenario::CheckBuildFiles(*build); !st) return st;
  if (!build->serve_args.empty() && a.settings.target != scenario::TargetKind::kEmbedded) {
    return MakeError(
        ErrorKind::kUsage,
        fmt::format("{}: [builds.{}] serve_args are flags of the embedded server, "
                    "and arm '{}' runs on target {}",
                    build->location, build->name, a.label, TargetKindName(a.settings.target)));
  }
  if (!build->pqc_bench.empty() && !f.shard.shard.empty()) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--shard: arm '{}' is measured by build '{}' (another "
                                 "pqc-bench), which a sharded run cannot start on every shard; "
                                 "run the builds' study unsharded",
                                 a.label, build->name));
  }
  return {};
}

// CheckArmTargets: before any measuring, the arms' targets can be reached: --target points
// every arm at the user's server, and an nginx arm needs an nginx to start.
Status CheckArmTargets(const RunFlags& f, const scenario::Scenario& sc, const scenario::Plan& plan,
                       const std::string& run_nginx, const std::string& run_haproxy) {
  for (const scenario::Arm& a : plan.arms) {
    const scenario::Build* build = scenario::FindBuild(sc.builds, a.settings.build);
    if (Status st = CheckArmBuild(f, a, build); !st) return st;
    const std::string& nginx = build && !build->nginx.empty() ? build->nginx : run_nginx;
    const std::string& haproxy = build && !build->haproxy.empty() ? build->haproxy : run_haproxy;
    if (!f.external.empty() && a.settings.target != scenario::TargetKind::kExternal) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--target {}: arm '{}' runs on target {}, set by the "
                                   "scenario's matrix; drop the target factor to point every arm "
                                   "at your server",
                                   f.external, a.label, TargetKindName(a.settings.target)));
    }
    if (a.settings.target == scenario::TargetKind::kNginx && nginx.empty()) {
      return MakeError(ErrorKind::kUsage, "arm '" + a.label + "' runs on nginx, and " +
                                              MissingPeerHint("nginx", "--nginx", "PQC_NGINX"));
    }
    if (a.settings.target == scenario::TargetKind::kHaproxy && haproxy.empty()) {
      return MakeError(ErrorKind::kUsage,
                       "arm '" + a.label + "' runs on HAProxy, and " +
                           MissingPeerHint("HAProxy", "--haproxy", "PQC_HAPROXY"));
    }
  }
  return {};
}

// ReportRun: the summary table and files of the stored run, then the exit status: a run in
// which no arm produced a valid trial measured nothing, whatever --strict says (counted over
// the whole stored run: a resumed run's earlier trials count).
int ReportRun(const scenario::RunOutcome& outcome, bool strict) {
  auto stored = PrintStudy(outcome.dir);
  if (!stored) return ReportError("run", stored.error());
  const auto valid = std::count_if(stored->trials.begin(), stored->trials.end(),
                                   [](const results::StoredTrial& t) { return t.valid; });
  if (!outcome.stopped.empty()) {
    fmt::print(stderr,
               "run stopped before its plan's end: {}; every trial measured until then is "
               "stored (a sharded study cannot be resumed: merge the shards' directories for what "
               "was measured, or run the study again)\n",
               outcome.stopped);
  } else if (!outcome.complete) {
    fmt::print(stderr, "run interrupted: finish it with pqc-bench run --resume {}\n", outcome.dir);
  }
  if (valid == 0) {
    const auto failed = std::count_if(
        stored->arms.begin(), stored->arms.end(),
        [](const results::StoredArm& a) { return a.status == results::ArmStatus::kFailed; });
    fmt::print(stderr,
               "run measured nothing: no arm produced a valid trial ({} of {} arms failed, {} "
               "trials ran, all invalid); see the reasons above (exit status 1)\n",
               failed, stored->arms.size(), stored->trials.size());
    return kExitInvalid;
  }
  if (!outcome.complete) return kExitInvalid;
  if (strict && (outcome.trials_invalid > 0 || outcome.arms_failed > 0)) return kExitInvalid;
  return kExitOk;
}

}  // namespace

int RunMain(int argc, char** argv) {
  CLI::App app{
      "Run a scenario: every arm × trial in interleaved order, stored in SQLite, then "
      "the summary and the report.",
      "pqc-bench run"};
  RunFlags f;
  AddRunFlags(app, f);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (f.file.empty() && f.resume.empty()) {
    return ReportError("run", MakeError(ErrorKind::kUsage,
                                        "give a scenario file (e.g. scenarios/quick.toml) or "
                                        "--resume DIR"));
  }
  scenario::ParseOptions po = ParseOptionsOf(f);
  auto sc =
      f.resume.empty() ? scenario::ParseScenarioFile(f.file, po) : ResumeScenario(f.resume, po);
  if (!sc) return ReportError("run", sc.error());
  if (!f.as_build.empty()) {
    // One trial of one build's arm for the run that started this one: no study of its own.
    if (f.as_build != scenario::kThisBuild &&
        scenario::FindBuild(sc->builds, f.as_build) == nullptr) {
      return ReportError(
          "run", MakeError(ErrorKind::kUsage, fmt::format("--as-build {}: the scenario has no "
                                                          "[builds.{}]",
                                                          f.as_build, f.as_build)));
    }
    sc->stop.reset();
    sc->trials = 1;
  }
  auto plan = scenario::MakePlan(*sc);
  if (!plan) return ReportError("run", plan.error());
  scenario::RunOptions ro;
  if (!f.as_build.empty()) ro.as_build = f.as_build;
  ro.results_root = f.results_root;
  ro.resume_dir = f.resume;
  ro.self_exe = SelfExe();
  ro.nginx_exe = f.nginx.empty() ? DefaultNginxExe() : f.nginx;
  ro.haproxy_exe = f.haproxy.empty() ? DefaultHaproxyExe() : f.haproxy;
  if (Status st = CheckArmTargets(f, *sc, *plan, ro.nginx_exe, ro.haproxy_exe); !st) {
    return ReportError("run", st.error());
  }
  ro.options = {.full = po.full,
                .trials = po.trials,
                .set = po.overrides,
                .only = po.only,
                .stop = po.stop,
                .builds = po.builds};
  auto shard = ParseShardFlag(f.shard);
  if (!shard) return ReportError("run", shard.error());
  auto rendezvous = ParseRendezvous(f.shard);
  if (!rendezvous) return ReportError("run", rendezvous.error());
  auto key = ParseRendezvousKey(f.shard);
  if (!key) return ReportError("run", key.error());
  auto serve = ParseServeHost(f.shard, *rendezvous);
  if (!serve) return ReportError("run", serve.error());
  ro.shard = *shard;
  ro.rendezvous = *rendezvous;
  ro.rendezvous_key = std::move(*key);
  ro.serve_host = *serve;
  ro.rendezvous_timeout = f.shard.rendezvous_timeout;
  ro.max_start_late = f.shard.start_tolerance;
  const std::string adjacent =
      plan->adjacent.empty()
          ? std::string()
          : fmt::format("; the arms that differ in {} alone run back to back", plan->adjacent);
  if (sc->stop) {
    fmt::print(stderr, "{}: {} arms; the study stops itself: {} ({} questions){}\n", sc->title,
               plan->arms.size(), scenario::DescribeStop(*sc->stop),
               scenario::QuestionsOf(*plan, *sc->stop).size(), adjacent);
  } else {
    fmt::print(stderr, "{}: {} arms × {} trials = {} trials{}{}\n", sc->title, plan->arms.size(),
               sc->trials, plan->trials.size(), f.resume.empty() ? "" : " (resuming)", adjacent);
  }
  auto outcome = scenario::RunPlan(*sc, *plan, ro);
  if (!outcome) return ReportError("run", outcome.error());
  // A build's trial for another run: that run reads the database and reports the study.
  if (!f.as_build.empty()) return outcome->trials_run > 0 ? kExitOk : kExitInvalid;
  return ReportRun(*outcome, f.strict);
}

}  // namespace pqc::cli
