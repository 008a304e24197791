#include "scenario/build_trial.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>

#include <filesystem>

#include "core/child_process.h"
#include "results/run_reader.h"
#include "target/readiness.h"

namespace pqc::scenario {
namespace {

namespace fs = std::filesystem;

// StopPending: a Ctrl-C or SIGTERM is queued for this process (the runner blocks them and
// takes them between trials); looking does not consume it.
bool StopPending() {
  sigset_t pending;
  sigemptyset(&pending);
  if (sigpending(&pending) != 0) return false;
  return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1;
}

// TrialTimeout: the other build's whole run of one trial — its start, certificates, target,
// warm-up, measured phase and drain — with room for a slow machine; past it, it is stopped.
Nanos TrialTimeout(const ArmSettings& s) {
  return 2 * (s.warmup + s.duration + s.timeout) + 120'000'000'000;
}

// RemoveDatabase: a run directory's results.sqlite and its journal files.
void RemoveDatabase(const fs::path& run_dir) {
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::error_code ec;
    fs::remove(run_dir / (std::string("results.sqlite") + suffix), ec);
  }
}

// ForgetEarlierAttempts: the databases under `work` of the other build's earlier attempts at
// this trial (their logs stay).
void ForgetEarlierAttempts(const std::string& work) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(work, ec)) {
    if (e.is_directory()) RemoveDatabase(e.path());
  }
}

// RunDirIn: the one run directory the other build made under `work`.
Result<std::string> RunDirIn(const std::string& work) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(work, ec)) {
    if (e.is_directory() && fs::exists(e.path() / "results.sqlite")) {
      dirs.push_back(e.path().string());
    }
  }
  if (dirs.size() != 1) {
    return MakeError(ErrorKind::kIo, fmt::format("expected one results directory in {}, found {}",
                                                 work, dirs.size()));
  }
  return dirs.front();
}

// BuildRun: what the other build stored: its run, and the records of its one trial (if any).
struct BuildRun {
  results::StoredRun run;
  results::TrialRecords records;
};

// ReadBuildRun: the other build's database, read and closed.
Result<BuildRun> ReadBuildRun(const std::string& dir) {
  auto db = results::OpenResults(dir);
  if (!db) return db.error();
  auto run = results::ReadRun(*db);
  if (!run) return run.error();
  BuildRun out{.run = std::move(*run), .records = {}};
  if (out.run.trials.size() == 1) {
    auto records = results::ReadTrialRecords(*db, out.run.trials.front().id);
    if (!records) return records.error();
    out.records = std::move(*records);
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> BuildRunArgs(const RunOptions& o, const Arm& arm,
                                              const Build& build, const std::string& scenario_file,
                                              const std::string& work) {
  std::vector<std::string> argv = {build.pqc_bench, "run", scenario_file, "--trials", "1",
                                   "--results",     work,  "--as-build",  build.name};
  for (const auto& [factor, value] : arm.factors) {
    if (value.find(',') != std::string::npos) {
      return MakeError(ErrorKind::kConfig,
                       fmt::format("arm '{}': matrix.{} value '{}' holds ',', which cannot name "
                                   "the arm to build '{}' (run --only splits on it); rename the "
                                   "value",
                                   arm.label, factor, value, build.name));
    }
    argv.insert(argv.end(), {"--only", factor + "=" + value});
  }
  if (o.options.full) argv.emplace_back("--full");
  // The builds given on the command line make the build factor: the other build needs them
  // to know its own arm.
  for (const std::string& b : o.options.builds) argv.insert(argv.end(), {"--build", b});
  for (const std::string& kv : o.options.set) argv.insert(argv.end(), {"--set", kv});
  const std::string& nginx = build.nginx.empty() ? o.nginx_exe : build.nginx;
  const std::string& haproxy = build.haproxy.empty() ? o.haproxy_exe : build.haproxy;
  if (!nginx.empty()) argv.insert(argv.end(), {"--nginx", nginx});
  if (!haproxy.empty()) argv.insert(argv.end(), {"--haproxy", haproxy});
  return argv;
}

Result<TrialOutput> RunTrialInBuild(const RunOptions& o, const Arm& arm, const PlannedTrial& t,
                                    const Build& build, const std::string& scenario_file,
                                    const std::string& work) {
  auto argv = BuildRunArgs(o, arm, build, scenario_file, work);
  if (!argv) return argv.error();
  // A database left by an attempt this run did not store (a crash, a resumed run measuring
  // the trial again) is not this attempt's.
  ForgetEarlierAttempts(work);
  const std::string log = (fs::path(work) / "build-run.log").string();
  SpawnOptions spawn;
  spawn.argv = std::move(*argv);
  spawn.output_path = log;
  // Its own process group: a Ctrl-C reaches the runner, which passes it on below, so that the
  // other build stops its trial as this one would.
  spawn.process_group = true;
  auto child = ChildProcess::Spawn(spawn);
  if (!child) {
    return MakeError(child.error().kind,
                     fmt::format("build '{}': {}", build.name, child.error().message));
  }
  const Nanos deadline = MonotonicNow() + TrialTimeout(arm.settings);
  bool passed_on = false;
  while (!child->Exited()) {
    if (MonotonicNow() >= deadline) {
      (void)child->Terminate(10'000'000'000);
      return MakeError(ErrorKind::kSystem,
                       fmt::format("build '{}' ({}) did not finish its trial within {:.0f} s, "
                                   "stopped; its output:\n{}",
                                   build.name, build.pqc_bench,
                                   static_cast<double>(TrialTimeout(arm.settings)) / 1e9,
                                   target::ReadTail(log)));
    }
    pollfd p{child->exit_fd(), POLLIN, 0};
    (void)poll(&p, 1, 100);
    if (!passed_on && StopPending()) {
      (void)kill(child->pid(), SIGINT);
      passed_on = true;
    }
  }
  const std::string how = child->exit_info()->Describe();
  auto failed = [&](const std::string& what) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("build '{}' ({}): {} ({}); its output:\n{}", build.name,
                                 build.pqc_bench, what, how, target::ReadTail(log)));
  };
  auto dir = RunDirIn(work);
  if (!dir) return failed("it stored no results");
  auto read = ReadBuildRun(*dir);
  if (!read) return failed(read.error().message);
  const results::StoredRun& run = read->run;
  if (run.trials.empty()) {
    for (const results::StoredArm& a : run.arms) {
      if (a.status == results::ArmStatus::kFailed) return failed(a.failure);
    }
    if (passed_on) {
      // Stopped before it measured: an interrupted trial with nothing in it.
      TrialOutput out;
      out.row.arm = arm.id;
      out.row.block = t.block;
      out.row.seq = t.seq;
      out.row.interrupted = true;
      out.row.reasons = {"interrupted before build '" + build.name + "' measured"};
      return out;
    }
    return failed("it stored no trial");
  }
  if (run.trials.size() != 1 || run.arms.size() != 1) {
    return failed(fmt::format("it ran {} arms and {} trials, not this arm's one trial",
                              run.arms.size(), run.trials.size()));
  }
  const results::StoredTrial& stored = run.trials.front();
  TrialOutput out;
  out.load = std::move(read->records.load);
  out.strings = std::move(read->records.strings);
  out.load.measure_start = stored.measure_start_ns;
  out.load.measure_end = stored.measure_end_ns;
  out.load.interrupted = stored.interrupted;
  results::TrialRow& row = out.row;
  static_cast<results::TrialRecord&>(row) = stored;
  row.id = 0;
  row.arm = arm.id;
  row.block = t.block;
  row.seq = t.seq;
  // The rows are this run's now: the other build's database goes (its log, its target's files
  // and its trial directory stay beside this trial's).
  RemoveDatabase(*dir);
  // What measured it (the caller adds the binary's hash, computed once per run).
  row.target.build = results::BuildRecord{.name = build.name,
                                          .exe = build.pqc_bench,
                                          .openssl_version = run.info.openssl_version,
                                          .git_commit = run.info.git_commit};
  return out;
}

}  // namespace pqc::scenario
