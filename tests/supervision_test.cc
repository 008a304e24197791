// Supervised servers: a server that dies under `serve --nginx|--haproxy` or under `run` (any
// target the tool starts) is noticed at once — serve exits non-zero naming how it ended and
// the end of its log, run ends the trial's load early and stores the trial as invalid with
// that reason — and no process of it is left behind (nginx's workers outlive a killed master
// unless the tool sweeps their process group). Underneath: the child-process owner's pidfd
// and process group, and the stop-signal wait that also watches a descriptor.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench_child.h"
#include "core/child_process.h"
#include "core/cpu_affinity.h"
#include "core/fd.h"
#include "core/stop_signals.h"
#include "test_paths.h"

namespace pqc {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// WaitFor: polls `pred` every 20 ms for at most `limit`; whether it came true.
template <typename Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!pred()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// ChildMentioning: a child of `parent` whose command line contains `needle` (0 if none).
pid_t ChildMentioning(pid_t parent, const std::string& needle) {
  std::vector<pid_t> kids = test::ChildrenOf(parent);
  for (pid_t p : test::PidsMentioning(needle)) {
    if (std::find(kids.begin(), kids.end(), p) != kids.end()) return p;
  }
  return 0;
}

// Descendants: `root`'s children, theirs, and so on (a server's workers).
std::vector<pid_t> Descendants(pid_t root) {
  std::vector<pid_t> out, next = {root};
  while (!next.empty()) {
    pid_t p = next.back();
    next.pop_back();
    for (pid_t c : test::ChildrenOf(p)) {
      out.push_back(c);
      next.push_back(c);
    }
  }
  return out;
}

// Killed: what became of `child` (serve, run) once its server got SIGKILL: its exit, the
// seconds from the kill to that exit, and the server's workers at the time of the kill.
struct Killed {
  test::BenchExit exit;
  double seconds = 0;
  std::vector<pid_t> workers;
};
Killed KillServer(pid_t server, const test::BenchChild& child, std::chrono::seconds limit) {
  Killed k;
  k.workers = Descendants(server);
  kill(server, SIGKILL);
  const auto killed = Clock::now();
  k.exit = test::WaitBench(child, limit);
  k.seconds = SecondsSince(killed);
  return k;
}

// ExpectNoneRuns: none of `pids` still runs (within 5 s: an orphan may take a moment).
void ExpectNoneRuns(const std::vector<pid_t>& pids) {
  for (pid_t p : pids) {
    EXPECT_TRUE(WaitFor([&] { return !test::Running(p); }, std::chrono::seconds(5)))
        << "process " << p << " of the dead server still runs";
  }
}

TEST(ChildSupervisionTest, ExitFdTurnsReadableAndTheExitIsUnasked) {
  auto c = ChildProcess::Spawn({.argv = {"/bin/sh", "-c", "exec sleep 30"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_GE(c->exit_fd(), 0);
  StopSignals signals;
  EXPECT_EQ(signals.WaitUntil(MonotonicNow() + 50'000'000, c->exit_fd()), 0)
      << "a running child: the wait ends at its deadline";
  kill(c->pid(), SIGKILL);
  const Nanos before = MonotonicNow();
  EXPECT_EQ(signals.WaitUntil(MonotonicNow() + 10'000'000'000, c->exit_fd()),
            StopSignals::kWatchReady);
  EXPECT_LT(MonotonicNow() - before, 1'000'000'000);
  ASSERT_TRUE(c->Exited());
  EXPECT_TRUE(c->exit_info()->unasked);
  EXPECT_EQ(c->exit_info()->Describe(), "killed by signal 9 (Killed)");

  auto asked = ChildProcess::Spawn({.argv = {"/bin/sh", "-c", "exec sleep 30"}});
  ASSERT_TRUE(asked.ok()) << asked.error().message;
  auto e = asked->Terminate(5'000'000'000);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_FALSE(e->unasked) << "stopped by the tool, not dead on its own";
}

// server_cpus: the child and what it starts run on the CPUs named (the kernel's own list
// of each process says so), and a CPU this process may not use is refused before any fork.
TEST(ChildSupervisionTest, APlacedChildAndItsChildrenRunOnTheirCpus) {
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  unsigned last = 0;
  for (unsigned c = 0; c <= kMaxCpu; ++c) last = CPU_ISSET(c, &mine) ? c : last;
  const fs::path out = fs::path(testing::TempDir()) / "placed.txt";
  auto c = ChildProcess::Spawn({.argv = {"/bin/sh", "-c",
                                         "grep Cpus_allowed_list /proc/self/status; "
                                         "sh -c 'grep Cpus_allowed_list /proc/self/status'"},
                                .output_path = out.string(),
                                .cpus = {last}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto e = c->WaitExit(10'000'000'000);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(test::ReadFile(out.string()), fmt::format("Cpus_allowed_list:\t{0}\n"
                                                      "Cpus_allowed_list:\t{0}\n",
                                                      last));
  // "0-1" on two cores: the last CPU ends the text the errors quote.
  const std::string available = AvailableCpusText();
  EXPECT_TRUE(available.ends_with(std::to_string(last))) << available;
  if (!CPU_ISSET(kMaxCpu, &mine)) {
    auto refused = ChildProcess::Spawn({.argv = {"/bin/true"}, .cpus = {kMaxCpu}});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message,
              fmt::format("server_cpus: CPU {} is not one this process may run on (available: {})",
                          kMaxCpu, AvailableCpusText()));
  }
}

TEST(ChildSupervisionTest, ASignalStillEndsAWatchedWait) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ScopedFd read_end(fds[0]), write_end(fds[1]);
  StopSignals signals;
  ASSERT_EQ(syscall(SYS_tgkill, getpid(), gettid(), SIGTERM), 0);
  EXPECT_EQ(signals.WaitUntil(MonotonicNow() + 5'000'000'000, read_end.get()), SIGTERM);
  ASSERT_EQ(write(write_end.get(), "x", 1), 1);
  EXPECT_EQ(signals.WaitUntil(MonotonicNow() + 5'000'000'000, read_end.get()),
            StopSignals::kWatchReady);
  EXPECT_FALSE(signals.Pending()) << "the signal was consumed once";
}

TEST(ChildSupervisionTest, AKilledGroupLeaderTakesItsGroupWithIt) {
  // A leader with a child of its own (a master and its worker): killing the leader from
  // outside leaves the worker running, unless the owner sweeps the group when it reaps.
  auto c =
      ChildProcess::Spawn({.argv = {"/bin/sh", "-c", "sleep 30 & wait"}, .process_group = true});
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::vector<pid_t> workers;
  ASSERT_TRUE(WaitFor([&] { return !(workers = test::ChildrenOf(c->pid())).empty(); },
                      std::chrono::seconds(5)));
  EXPECT_EQ(getpgid(workers[0]), c->pid()) << "the worker is in its leader's group";
  kill(c->pid(), SIGKILL);
  ASSERT_TRUE(WaitFor([&] { return c->Exited(); }, std::chrono::seconds(5)));
  EXPECT_TRUE(WaitFor([&] { return !test::Running(workers[0]); }, std::chrono::seconds(5)))
      << "worker " << workers[0] << " outlived its leader";
}

class SupervisionTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = tmp_.path(); }

  // ServeDiesAndIsNoticed: `serve` of the given server; once it listens, its server process
  // (and every worker) is killed with SIGKILL; serve must exit 3 within a second, saying the
  // server ended, how, and the end of its log, with no process of it left.
  void ServeDiesAndIsNoticed(const std::string& flag, const std::string& exe_flag,
                             const std::string& exe, const std::string& needle) {
    if (!fs::exists(exe)) GTEST_SKIP() << exe << " not built (scripts/setup.sh peers)";
    test::BenchChild serve = test::SpawnBench({"serve", flag, exe_flag, exe, "--listen",
                                               "127.0.0.1:0", "--work-dir", dir_ + "/server-files"},
                                              dir_);
    ASSERT_NE(test::ServeAddress(serve).len, 0u);
    const pid_t server = ChildMentioning(serve.pid, needle);
    ASSERT_NE(server, 0) << "no child of serve runs " << needle;
    const Killed k = KillServer(server, serve, std::chrono::seconds(20));
    const test::BenchExit& e = k.exit;
    const double noticed = k.seconds;
    EXPECT_EQ(e.code, 3) << e.output;
    EXPECT_LT(noticed, 1.0) << "serve noticed its server's death only after " << noticed << " s";
    EXPECT_TRUE(Contains(e.output, "ended on its own")) << e.output;
    EXPECT_TRUE(Contains(e.output, "killed by signal 9")) << e.output;
    EXPECT_TRUE(Contains(e.output, "the last lines of " + dir_ + "/server-files/")) << e.output;
    EXPECT_FALSE(Contains(e.output, "stopped after")) << "no normal end reported: " << e.output;
    ExpectNoneRuns(k.workers);
  }

  // RunDiesAndIsNoticed: a one-trial study on `kind` whose trial lasts 20 s; 1.5 s into it the
  // server is killed. The trial's load must end at once (the run finishes long before the
  // 20 s), the trial be stored invalid with the server's end as its reason, the run exit 1
  // (it measured nothing valid), and no process of the server be left.
  void RunDiesAndIsNoticed(const std::string& kind, const std::string& needle,
                           const std::vector<std::string>& extra) {
    const std::string scenario = dir_ + "/die.toml";
    test::WriteFile(scenario,
                    "title = \"die\"\n[target]\nkind = \"" + kind +
                        "\"\n[tls]\nchain = \"ecdsa-p256\"\n"
                        "[load]\nmode = \"fresh\"\nrate = 50\nduration = \"20s\"\n"
                        "warmup = \"1s\"\nmax_lag_p99 = \"5s\"\nmax_link_late_p99 = \"5s\"\n"
                        "[trials]\ncount = 1\nseed = 3\n");
    std::vector<std::string> args = {"run", scenario, "--results", dir_ + "/results"};
    args.insert(args.end(), extra.begin(), extra.end());
    test::BenchChild run = test::SpawnBench(args, dir_);
    pid_t server = 0;
    ASSERT_TRUE(WaitFor([&] { return (server = ChildMentioning(run.pid, needle)) != 0; },
                        std::chrono::seconds(60)))
        << "the run started no " << needle << ": " << test::ReadFile(run.out_path);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // into the trial's load
    const Killed k = KillServer(server, run, std::chrono::seconds(60));
    const test::BenchExit& e = k.exit;
    const double took = k.seconds;
    EXPECT_EQ(e.code, 1) << e.output;
    // The load stops within a second; the rest is writing and reporting one short trial.
    EXPECT_LT(took, 10.0) << "the trial ran on after its server died: " << e.output;
    EXPECT_TRUE(Contains(e.output, "target died:")) << e.output;
    EXPECT_TRUE(Contains(e.output, "killed by signal 9")) << e.output;
    ExpectNoneRuns(k.workers);
    // The stored trial: invalid, with the reason.
    std::vector<std::string> dirs = test::RunDirs(dir_ + "/results");
    ASSERT_EQ(dirs.size(), 1u);
    sqlite3* db = nullptr;
    ASSERT_EQ(
        sqlite3_open_v2((dirs[0] + "/results.sqlite").c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
        SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT valid, reasons_json FROM trials", -1, &st, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(st, 0), 0);
    const std::string reasons = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
    EXPECT_TRUE(Contains(reasons, "the target died during the trial")) << reasons;
    EXPECT_TRUE(Contains(reasons, "killed by signal 9")) << reasons;
    EXPECT_EQ(sqlite3_step(st), SQLITE_DONE) << "one trial";
    sqlite3_finalize(st);
    sqlite3_close(db);
  }

  test::TempDir tmp_{"pqc-supervision"};
  std::string dir_;
};

TEST_F(SupervisionTest, ServeNoticesItsNginxDying) {
  ServeDiesAndIsNoticed("--nginx", "--nginx-exe", PQC_NGINX_BIN, "nginx");
}

TEST_F(SupervisionTest, ServeNoticesItsHaproxyDying) {
  ServeDiesAndIsNoticed("--haproxy", "--haproxy-exe", PQC_HAPROXY_BIN, "haproxy");
}

TEST_F(SupervisionTest, RunNoticesTheEmbeddedServerDying) {
  RunDiesAndIsNoticed("embedded", "serve", {});
}

TEST_F(SupervisionTest, RunNoticesNginxDying) {
  if (!fs::exists(PQC_NGINX_BIN)) GTEST_SKIP() << "nginx not built (scripts/setup.sh peers)";
  RunDiesAndIsNoticed("nginx", "nginx", {"--nginx", PQC_NGINX_BIN});
}

TEST_F(SupervisionTest, RunNoticesHaproxyDying) {
  if (!fs::exists(PQC_HAPROXY_BIN)) GTEST_SKIP() << "HAProxy not built (scripts/setup.sh peers)";
  RunDiesAndIsNoticed("haproxy", "haproxy", {"--haproxy", PQC_HAPROXY_BIN});
}

}  // namespace
}  // namespace pqc
