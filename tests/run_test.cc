// `pqc-bench run` and `pqc-bench report` end to end: the real binary (and its `serve`
// children) on tiny scenarios written to a temporary directory, results in another one.
// A complete run and its files, the report formats and their errors, SIGINT and --resume,
// SIGKILL (the database survives, the targets die with the run) and --resume, bad input,
// and an arm that cannot run (SLH-DSA over TLS).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_child.h"
#include "test_paths.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string ReadAll(const std::string& path) {
  return pqc::test::ReadFile(path);
}

using pqc::test::WriteFile;

using pqc::test::TempDir;

// Child: `pqc-bench ARGS...` with stdout and stderr in files of their own (never a pipe that
// could fill); Finished: its exit, read back.
using Child = pqc::test::BenchChild;

struct Finished {
  int rc = -1;  // exit status, or 128 + signal
  std::string out, err;
  bool timed_out = false;
};

Child Spawn(const std::vector<std::string>& args, const std::string& io_dir) {
  return pqc::test::SpawnBenchApart(args, io_dir);
}

Finished Wait(const Child& c, std::chrono::seconds limit = std::chrono::seconds(60)) {
  pqc::test::BenchExit e = pqc::test::WaitBench(c, limit);
  return {e.code, std::move(e.output), std::move(e.errors), e.timed_out};
}

Finished Exec(const std::vector<std::string>& args, const std::string& io_dir,
              std::chrono::seconds limit = std::chrono::seconds(60)) {
  return Wait(Spawn(args, io_dir), limit);
}

std::string Describe(const Finished& f) {
  return "exit " + std::to_string(f.rc) + (f.timed_out ? " (timed out)" : "") + "\n--- stdout:\n" +
         f.out + "\n--- stderr:\n" + f.err;
}

// Scenario: two arms (X25519 vs X25519MLKEM768), fresh handshakes at 50/s.
std::string Scenario(int trials, const std::string& duration, const std::string& warmup,
                     int seed = 7) {
  return "title = \"run_test\"\n"
         "[tls]\nchain = \"ecdsa-p256\"\n"
         "[load]\nmode = \"fresh\"\nrate = 50\nduration = \"" +
         duration + "\"\nwarmup = \"" + warmup +
         "\"\n"
         // The schedule's lag is not what these tests judge; on a loaded machine a 1 ms limit
         // would leave no valid trial, and such a run exits 1.
         "max_lag_p99 = \"5s\"\nmax_link_late_p99 = \"5s\"\n"
         "[trials]\ncount = " +
         std::to_string(trials) + "\nseed = " + std::to_string(seed) +
         "\n"
         "[matrix]\ngroup = [\"X25519\", \"X25519MLKEM768\"]\n";
}

using pqc::test::RunDirs;

// Sql: read-only queries on a results database.
class Sql {
 public:
  explicit Sql(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      error_ = db_ != nullptr ? sqlite3_errmsg(db_) : "open failed";
    }
    if (db_ != nullptr) sqlite3_busy_timeout(db_, 2000);
  }
  ~Sql() { sqlite3_close(db_); }
  Sql(const Sql&) = delete;
  Sql& operator=(const Sql&) = delete;
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // Rows: every row of `query`, as integers (NULL = -1).
  std::vector<std::vector<int64_t>> Rows(const std::string& query) {
    std::vector<std::vector<int64_t>> out;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, query.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << query << ": " << sqlite3_errmsg(db_);
      return out;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      std::vector<int64_t> row;
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        row.push_back(sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i));
      }
      out.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) ADD_FAILURE() << query << ": " << sqlite3_errmsg(db_);
    sqlite3_finalize(st);
    return out;
  }
  // Texts: the first column of every row of `query`, as text.
  std::vector<std::string> Texts(const std::string& query) {
    std::vector<std::string> out;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, query.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << query << ": " << sqlite3_errmsg(db_);
      return out;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      out.emplace_back(t != nullptr ? reinterpret_cast<const char*>(t) : "");
    }
    sqlite3_finalize(st);
    return out;
  }
  int64_t Int(const std::string& query) {
    auto rows = Rows(query);
    return rows.empty() || rows[0].empty() ? -1 : rows[0][0];
  }

 private:
  sqlite3* db_ = nullptr;
  std::string error_;
};

// TrialsDone: trials rows in the database at `path` (0 while it does not exist yet).
int64_t TrialsDone(const std::string& root) {
  auto dirs = RunDirs(root);
  if (dirs.size() != 1) return 0;
  const std::string db = dirs[0] + "/results.sqlite";
  if (!fs::exists(db)) return 0;
  sqlite3* h = nullptr;
  int64_t n = 0;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 500);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM trials WHERE interrupted = 0", -1, &st,
                           nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return n;
}

// WaitForTrials: polls until `n` trials are stored or the deadline passes.
bool WaitForTrials(const std::string& root, int64_t n, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (TrialsDone(root) >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// ProcessesMentioning: pids (other than ours) whose command line contains `text`.
std::vector<pid_t> ProcessesMentioning(const std::string& text) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (pid == getpid()) continue;
    std::string cmd = ReadAll(e.path().string() + "/cmdline");
    for (char& c : cmd) c = c == '\0' ? ' ' : c;
    if (cmd.find(text) != std::string::npos) {
      // A zombie has an empty cmdline, so a hit is a live process.
      out.push_back(pid);
    }
  }
  return out;
}

bool NoProcessMentions(const std::string& text, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    if (ProcessesMentioning(text).empty()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// ExpectArmMeasured: the arm ran and measured handshakes. On this shared 2-core machine a
// trial may be marked INVALID because the load generator was short of CPU ("load generator
// saturated": its threads' CPU share, or a start lag beyond the scenario's 5 s): the tool's
// own check. Only that reason is tolerated; then the measured handshakes are checked in the
// database.
void ExpectArmMeasured(const nlohmann::json& arm, Sql& sql) {
  const int64_t id = arm["id"].get<int64_t>();
  SCOPED_TRACE("arm " + std::to_string(id) + " " + arm["label"].dump());
  for (const std::string& why : sql.Texts(
           "SELECT reasons_json FROM trials WHERE valid = 0 AND arm_id = " + std::to_string(id))) {
    EXPECT_NE(why.find("load generator saturated"), std::string::npos)
        << "an invalid trial for another reason than the machine's load: " << why;
  }
  EXPECT_GT(sql.Int("SELECT count(*) FROM connections c JOIN trials t ON c.trial_id = t.id "
                    "WHERE c.measured = 1 AND c.tls_done != 0 AND t.arm_id = " +
                    std::to_string(id)),
            0);
  if (arm["status"] == "ok") {
    EXPECT_GT(arm["phases"]["handshake"]["count"].get<int64_t>(), 0) << arm.dump();
  } else {
    EXPECT_EQ(arm["status"], "invalid") << arm.dump();
    std::cerr << "note: arm " << id << " has no valid trial (load generator saturated on this "
              << "machine); its handshakes were checked in the database\n";
  }
}

void ExpectInterleaved(Sql& sql, int arms) {
  std::map<int64_t, std::set<int64_t>> blocks;
  int64_t last_block = -1;
  for (const auto& r : sql.Rows("SELECT block, arm_id FROM trials ORDER BY seq")) {
    EXPECT_GE(r[0], last_block) << "blocks run in order";
    last_block = r[0];
    blocks[r[0]].insert(r[1]);
  }
  for (const auto& [block, ids] : blocks) {
    EXPECT_EQ(ids.size(), static_cast<size_t>(arms)) << "block " << block << " holds every arm";
  }
}

void ExpectNoDuplicateSeq(Sql& sql) {
  EXPECT_EQ(sql.Int("SELECT count(*) FROM trials"),
            sql.Int("SELECT count(DISTINCT seq) FROM trials"));
  EXPECT_EQ(sql.Int("SELECT count(*) FROM trials WHERE interrupted = 1"), 0);
}

// SharedRun: one complete two-arm run (2 trials each), made once per process and used by
// the run and the report tests (each of which makes its own under ctest).
struct CompletedRun {
  std::unique_ptr<TempDir> tmp;
  Finished result;
  std::string root, dir;
};

const CompletedRun& SharedRun() {
  static CompletedRun run = [] {
    CompletedRun r;
    r.tmp = std::make_unique<TempDir>();
    const std::string file = *r.tmp / "twoarms.toml";
    WriteFile(file, Scenario(2, "2s", "1s"));
    r.root = *r.tmp / "results";
    r.result = Exec({"run", file, "--results", r.root}, r.tmp->path(), std::chrono::seconds(60));
    auto dirs = RunDirs(r.root);
    if (dirs.size() == 1) r.dir = dirs[0];
    return r;
  }();
  return run;
}

TEST(RunTest, CompleteRunWritesAllFilesAndInterleavesTheArms) {
  const CompletedRun& r = SharedRun();
  ASSERT_EQ(r.result.rc, 0) << Describe(r.result);
  auto dirs = RunDirs(r.root);
  ASSERT_EQ(dirs.size(), 1u);
  const std::string name = fs::path(r.dir).filename().string();
  EXPECT_TRUE(name.size() > std::string("-twoarms").size() && name.ends_with("-twoarms") &&
              std::isdigit(static_cast<unsigned char>(name[0])))
      << name;
  for (const char* f : {"results.sqlite", "summary.json", "summary.md", "report.html"}) {
    EXPECT_TRUE(fs::is_regular_file(r.dir + "/" + f)) << f;
    EXPECT_GT(fs::file_size(r.dir + "/" + f), 0u) << f;
  }
  EXPECT_NE(r.result.out.find(r.dir), std::string::npos) << "names its results directory";

  auto summary = nlohmann::json::parse(ReadAll(r.dir + "/summary.json"));
  EXPECT_EQ(summary["schema"], "pqc-bench/summary/2");
  EXPECT_EQ(summary["run"]["complete"], true);
  EXPECT_EQ(summary["run"]["trials_planned"], 4);
  EXPECT_EQ(summary["run"]["trials_done"], 4);
  ASSERT_EQ(summary["arms"].size(), 2u);
  Sql sql(r.dir + "/results.sqlite");
  ASSERT_TRUE(sql.ok()) << sql.error();
  for (const auto& arm : summary["arms"]) {
    SCOPED_TRACE(arm["label"].dump());
    ExpectArmMeasured(arm, sql);
    EXPECT_EQ(arm["trials"]["planned"], 2);
    EXPECT_EQ(arm["trials"]["done"], 2);
  }
  std::set<std::string> groups;
  for (const auto& arm : summary["arms"]) groups.insert(arm["factors"]["group"].get<std::string>());
  EXPECT_EQ(groups, (std::set<std::string>{"X25519", "X25519MLKEM768"}));
  EXPECT_NE(ReadAll(r.dir + "/report.html").find("<html"), std::string::npos);

  EXPECT_EQ(sql.Int("SELECT complete FROM run"), 1);
  EXPECT_EQ(sql.Int("SELECT trials_planned FROM run"), 4);
  EXPECT_EQ(sql.Int("SELECT count(*) FROM trials"), 4);
  EXPECT_EQ(sql.Int("SELECT count(*) FROM trials WHERE interrupted = 0"), 4);
  EXPECT_GT(sql.Int("SELECT count(*) FROM connections WHERE measured = 1"), 0);
  // Every trial has measured connections of its own.
  EXPECT_EQ(sql.Int("SELECT count(*) FROM trials t WHERE NOT EXISTS (SELECT 1 FROM connections c "
                    "WHERE c.trial_id = t.id AND c.measured = 1)"),
            0);
  ExpectNoDuplicateSeq(sql);
  ExpectInterleaved(sql, 2);
  EXPECT_EQ(sql.Int("SELECT count(DISTINCT block) FROM trials"), 2);
}

// A network of two client sites: one trial loads the target from both at once (a thread per
// site in its namespace, one start instant), each connection keeps its site, each site a half
// of the arm's schedule, and the summary splits by site. Structure only (the round trips are
// sites_test.py's): this runs under the sanitizers too.
TEST(RunTest, TwoSiteNetworkLoadsFromBothSitesInOneTrial) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (the emulated network)";
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  WriteFile(tmp / "sites.toml",
            "title = \"two sites\"\n[tls]\nchain = \"ecdsa-p256\"\ngroup = \"X25519\"\n"
            "[load]\nmode = \"fresh\"\nrate = 20\nduration = \"2s\"\nwarmup = \"1s\"\n"
            "network = \"both\"\nmax_lag_p99 = \"5s\"\nmax_link_late_p99 = \"5s\"\n[trials]\ncount "
            "= 1\nseed = 3\n"
            "[networks.a]\nrtt = \"4ms\"\n[networks.b]\nrtt = \"12ms\"\n"
            "[networks.both]\nsites = [\"a\", \"b\"]\n");
  // The sites share one start instant; under ThreadSanitizer one site's loader once began
  // 77 ms after it (the 10 ms default invalidates that): the structure, not the start, is
  // judged here.
  const Finished f =
      Exec({"run", tmp / "sites.toml", "--results", tmp / "results", "--start-tolerance", "5s"},
           tmp.path(), std::chrono::seconds(240));
  ASSERT_EQ(f.rc, 0) << Describe(f);
  auto dirs = RunDirs(tmp / "results");
  ASSERT_EQ(dirs.size(), 1u);
  Sql sql(dirs[0] + "/results.sqlite");
  ASSERT_TRUE(sql.ok()) << sql.error();
  // 20/s for 2 s: 40 measured connections, 20 from each site.
  EXPECT_EQ(sql.Rows("SELECT site, count(*) FROM connections WHERE measured = 1 GROUP BY site"),
            (std::vector<std::vector<int64_t>>{{0, 20}, {1, 20}}));
  EXPECT_EQ(sql.Int("SELECT count(*) FROM connections WHERE error != 'none'"), 0);
  // Ids stay unique across sites (the primary key would have refused a duplicate; the sites'
  // blocks are apart).
  EXPECT_EQ(sql.Int("SELECT count(DISTINCT id >> 56) FROM connections"), 2);
  auto link = nlohmann::json::parse(sql.Texts("SELECT link_json FROM trials").at(0));
  ASSERT_EQ(link["sites"].size(), 2u) << link.dump();
  EXPECT_EQ(link["sites"][1]["site"], "b");
  EXPECT_GT(link["sites"][1]["packets"].get<int64_t>(), 0);
  auto summary = nlohmann::json::parse(ReadAll(dirs[0] + "/summary.json"));
  const auto& sites = summary["arms"][0]["sites"];
  ASSERT_EQ(sites.size(), 2u) << summary["arms"][0].dump();
  EXPECT_EQ(sites[0]["name"], "a");
  EXPECT_EQ(sites[0]["rtt_ms"], 4.0);
  EXPECT_EQ(sites[1]["name"], "b");
  EXPECT_EQ(sites[0]["connections"].get<int>() + sites[1]["connections"].get<int>(),
            summary["arms"][0]["connections"].get<int>());
  // Connect is the network alone: the far site's median is the longer one.
  EXPECT_GT(sites[1]["connect"]["p50"].get<double>(), sites[0]["connect"]["p50"].get<double>());
  EXPECT_NE(ReadAll(dirs[0] + "/summary.md").find("by client site"), std::string::npos);
}

TEST(RunTest, ReportFormatsAndErrors) {
  const CompletedRun& r = SharedRun();
  ASSERT_EQ(r.result.rc, 0) << Describe(r.result);
  const std::string io = r.tmp->path();

  Finished csv = Exec({"report", r.dir, "--format", "csv"}, io);
  ASSERT_EQ(csv.rc, 0) << Describe(csv);
  EXPECT_EQ(csv.out.rfind("arm,label,factors", 0), 0u) << csv.out.substr(0, 200);
  EXPECT_NE(csv.out.find("X25519MLKEM768"), std::string::npos);
  EXPECT_GE(std::count(csv.out.begin(), csv.out.end(), '\n'), 3) << "header + a row per arm";

  Finished json = Exec({"report", r.dir, "--format", "json"}, io);
  ASSERT_EQ(json.rc, 0) << Describe(json);
  auto doc = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << json.out.substr(0, 300);
  EXPECT_EQ(doc["schema"], "pqc-bench/summary/2");
  EXPECT_EQ(doc["arms"].size(), 2u);
  EXPECT_EQ(doc["run"]["complete"], true);

  Finished md = Exec({"report", r.dir + "/results.sqlite", "--format", "md"}, io);
  ASSERT_EQ(md.rc, 0) << Describe(md);
  EXPECT_NE(md.out.find("|"), std::string::npos) << md.out.substr(0, 300);
  EXPECT_NE(md.out.find("X25519MLKEM768"), std::string::npos);

  Finished table = Exec({"report", r.dir, "--format", "table"}, io);
  ASSERT_EQ(table.rc, 0) << Describe(table);
  EXPECT_NE(table.out.find("X25519MLKEM768"), std::string::npos);
  EXPECT_EQ(table.out.find("INCOMPLETE"), std::string::npos) << table.out;

  Finished bogus = Exec({"report", r.dir, "--format", "bogus"}, io);
  EXPECT_EQ(bogus.rc, 2) << Describe(bogus);
  for (const char* f : {"table", "md", "csv", "json", "html"}) {
    EXPECT_NE(bogus.err.find(f), std::string::npos) << f << " missing in: " << bogus.err;
  }
  EXPECT_NE(bogus.err.find("bogus"), std::string::npos) << bogus.err;

  const std::string junk = *r.tmp / "junk.sqlite";
  WriteFile(junk, "this is not a database, just some text that is long enough to be a header\n");
  Finished not_db = Exec({"report", junk}, io);
  EXPECT_NE(not_db.rc, 0) << Describe(not_db);
  EXPECT_NE(not_db.err.find("not a pqc-bench results database"), std::string::npos) << not_db.err;

  const std::string missing = *r.tmp / "no-such-run";
  Finished gone = Exec({"report", missing}, io);
  EXPECT_NE(gone.rc, 0) << Describe(gone);
  EXPECT_NE(gone.err.find(missing), std::string::npos) << gone.err;
  EXPECT_NE(gone.err.find("no results database"), std::string::npos) << gone.err;
}

TEST(RunTest, SigintStopsBetweenTrialsAndResumeFinishes) {
  TempDir tmp;
  const std::string file = tmp / "interrupt.toml";
  WriteFile(file, Scenario(3, "2s", "1s", 9));
  const std::string root = tmp / "results";
  Child run = Spawn({"run", file, "--results", root}, tmp.path());
  // The first trial stored: the second one is starting or running.
  const bool stored = WaitForTrials(root, 1, std::chrono::seconds(40));
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  kill(run.pid, SIGINT);
  Finished f = Wait(run, std::chrono::seconds(30));
  ASSERT_TRUE(stored) << Describe(f);
  EXPECT_EQ(f.rc, 1) << Describe(f);
  EXPECT_NE(f.err.find("--resume"), std::string::npos) << f.err;
  auto dirs = RunDirs(root);
  ASSERT_EQ(dirs.size(), 1u);
  const std::string dir = dirs[0];
  EXPECT_NE(f.err.find(dir), std::string::npos) << "names the directory to resume: " << f.err;
  int64_t before = 0;
  {
    Sql sql(dir + "/results.sqlite");
    ASSERT_TRUE(sql.ok()) << sql.error();
    EXPECT_EQ(sql.Int("SELECT complete FROM run"), 0);
    before = sql.Int("SELECT count(*) FROM trials WHERE interrupted = 0");
    EXPECT_GE(before, 1);
    EXPECT_LT(before, 6);
  }
  auto partial = nlohmann::json::parse(ReadAll(dir + "/summary.json"), nullptr, false);
  ASSERT_FALSE(partial.is_discarded());
  EXPECT_EQ(partial["run"]["complete"], false);

  // A copy whose first stored trial sits where this version's plan puts the other arm (a run
  // another version ordered): --resume refuses it, names the trial, and runs nothing.
  const std::string moved = tmp / "moved";
  std::filesystem::copy(dir, moved, std::filesystem::copy_options::recursive);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((moved + "/results.sqlite").c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db,
                           "UPDATE trials SET arm_id = 3 - arm_id "
                           "WHERE seq = (SELECT min(seq) FROM trials)",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  Finished refused = Exec({"run", "--resume", moved}, tmp.path(), std::chrono::seconds(30));
  EXPECT_EQ(refused.rc, 2) << Describe(refused);
  EXPECT_NE(refused.err.find("planned by another version"), std::string::npos) << refused.err;
  {
    Sql sql(moved + "/results.sqlite");
    ASSERT_TRUE(sql.ok()) << sql.error();
    EXPECT_EQ(sql.Int("SELECT count(*) FROM trials WHERE interrupted = 0"), before);
  }

  Finished resumed = Exec({"run", "--resume", dir}, tmp.path(), std::chrono::seconds(60));
  ASSERT_EQ(resumed.rc, 0) << Describe(resumed);
  EXPECT_NE(resumed.err.find("resuming"), std::string::npos) << resumed.err;
  EXPECT_EQ(RunDirs(root).size(), 1u) << "resume writes into the same directory";
  Sql sql(dir + "/results.sqlite");
  ASSERT_TRUE(sql.ok()) << sql.error();
  EXPECT_EQ(sql.Int("SELECT complete FROM run"), 1);
  EXPECT_EQ(sql.Int("SELECT count(*) FROM trials"), 6);
  ExpectNoDuplicateSeq(sql);
  ExpectInterleaved(sql, 2);
  EXPECT_EQ(sql.Int("SELECT min(seq) FROM trials") + 5, sql.Int("SELECT max(seq) FROM trials"));
  auto summary = nlohmann::json::parse(ReadAll(dir + "/summary.json"));
  EXPECT_EQ(summary["run"]["complete"], true);
  EXPECT_EQ(summary["run"]["trials_done"], 6);
}

TEST(RunTest, SigkillLeavesAReadableDatabaseNoTargetsAndResumeFinishes) {
  TempDir tmp;
  const std::string file = tmp / "killed.toml";
  WriteFile(file, Scenario(2, "2s", "1s", 13));
  const std::string root = tmp / "results";
  Child run = Spawn({"run", file, "--results", root}, tmp.path());
  const bool stored = WaitForTrials(root, 1, std::chrono::seconds(40));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // inside the second trial
  // The second trial's target is up: its command line names the run's directory (so that
  // the check after the kill is not vacuous).
  const auto running = RunDirs(root);
  bool target_seen = false;
  for (int i = 0; i < 20 && running.size() == 1 && !target_seen; ++i) {
    target_seen = !ProcessesMentioning(running[0]).empty();
    if (!target_seen) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(run.pid, SIGKILL);
  Finished f = Wait(run, std::chrono::seconds(10));
  ASSERT_TRUE(stored) << Describe(f);
  EXPECT_EQ(f.rc, 128 + SIGKILL) << Describe(f);
  auto dirs = RunDirs(root);
  ASSERT_EQ(dirs.size(), 1u);
  const std::string dir = dirs[0];
  EXPECT_TRUE(target_seen) << "no `pqc-bench serve` naming " << dir << " during the trial";

  // The targets die with the run (PR_SET_PDEATHSIG): nothing names the run's directory.
  EXPECT_TRUE(NoProcessMentions(dir, std::chrono::seconds(3)))
      << "left behind: pid " << ProcessesMentioning(dir).front();
  for (pid_t p : ProcessesMentioning(dir)) kill(p, SIGKILL);

  Finished table = Exec({"report", dir}, tmp.path());
  EXPECT_EQ(table.rc, 0) << Describe(table);
  EXPECT_NE(table.out.find("INCOMPLETE"), std::string::npos) << table.out;
  {
    Sql sql(dir + "/results.sqlite");
    ASSERT_TRUE(sql.ok()) << sql.error();
    EXPECT_EQ(sql.Int("SELECT complete FROM run"), 0);
    const int64_t done = sql.Int("SELECT count(*) FROM trials");
    EXPECT_GE(done, 1);
    EXPECT_LT(done, 4);
    EXPECT_GT(sql.Int("SELECT count(*) FROM connections WHERE measured = 1"), 0);
  }

  Finished resumed = Exec({"run", "--resume", dir}, tmp.path(), std::chrono::seconds(60));
  ASSERT_EQ(resumed.rc, 0) << Describe(resumed);
  Sql sql(dir + "/results.sqlite");
  ASSERT_TRUE(sql.ok()) << sql.error();
  EXPECT_EQ(sql.Int("SELECT complete FROM run"), 1);
  EXPECT_EQ(sql.Int("SELECT count(*) FROM trials"), 4);
  ExpectNoDuplicateSeq(sql);
  ExpectInterleaved(sql, 2);
  EXPECT_TRUE(NoProcessMentions(dir, std::chrono::seconds(3)));
}

TEST(RunTest, BadInputIsReportedWithItsPlace) {
  TempDir tmp;
  const std::string io = tmp.path();
  const std::string root = tmp / "results";

  // A typo'd key, line 6 ("durtion = ...").
  const std::string typo = tmp / "typo.toml";
  WriteFile(typo,
            "title = \"typo\"\n"
            "[tls]\nchain = \"ecdsa-p256\"\n"
            "[load]\nrate = 50\ndurtion = \"2s\"\n"
            "[matrix]\ngroup = [\"X25519\", \"X25519MLKEM768\"]\n");
  Finished t = Exec({"run", typo, "--results", root}, io);
  EXPECT_NE(t.rc, 0) << Describe(t);
  EXPECT_EQ(t.rc, 2) << Describe(t);
  EXPECT_NE(t.err.find(typo + ":6:"), std::string::npos) << t.err;
  EXPECT_NE(t.err.find("durtion"), std::string::npos) << t.err;
  EXPECT_NE(t.err.find("duration"), std::string::npos) << t.err;

  // An unknown group in the matrix (line 4).
  const std::string group = tmp / "group.toml";
  WriteFile(group,
            "[tls]\nchain = \"ecdsa-p256\"\n"
            "[matrix]\ngroup = [\"X25519\", \"X25519MLKEM786\"]\n");
  Finished g = Exec({"run", group, "--results", root}, io);
  EXPECT_NE(g.rc, 0) << Describe(g);
  EXPECT_EQ(g.rc, 2) << Describe(g);
  EXPECT_NE(g.err.find(group + ":4:"), std::string::npos) << g.err;
  EXPECT_NE(g.err.find("X25519MLKEM786"), std::string::npos) << g.err;
  EXPECT_NE(g.err.find("X25519MLKEM768"), std::string::npos) << "the nearest name: " << g.err;
  EXPECT_TRUE(RunDirs(root).empty()) << "nothing runs before the scenario is valid";

  // --results under a regular file.
  const std::string good = tmp / "good.toml";
  WriteFile(good, Scenario(1, "1s", "1s"));
  const std::string blocker = tmp / "a-file";
  WriteFile(blocker, "x");
  const std::string bad_root = blocker + "/results";
  Finished w = Exec({"run", good, "--results", bad_root}, io);
  EXPECT_NE(w.rc, 0) << Describe(w);
  EXPECT_NE(w.err.find(bad_root), std::string::npos) << w.err;

  // A missing scenario file.
  const std::string none = tmp / "no-such-scenario.toml";
  Finished m = Exec({"run", none, "--results", root}, io);
  EXPECT_NE(m.rc, 0) << Describe(m);
  EXPECT_NE(m.err.find(none), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("cannot read"), std::string::npos) << m.err;
}

// ScenarioRun: `pqc-bench run` of a scenario text written to DIR/NAME.toml, into DIR/results:
// the exit, the one run directory it made ("" if not exactly one) and its summary.json (null
// if none).
struct ScenarioRun {
  Finished f;
  std::string dir;
  nlohmann::json summary;
};
ScenarioRun RunScenarioText(const TempDir& tmp, const std::string& name, const std::string& text,
                            std::chrono::seconds limit = std::chrono::seconds(60)) {
  const std::string file = tmp / (name + ".toml");
  WriteFile(file, text);
  ScenarioRun r;
  r.f = Exec({"run", file, "--results", tmp / "results"}, tmp.path(), limit);
  auto dirs = RunDirs(tmp / "results");
  if (dirs.size() == 1) {
    r.dir = dirs[0];
    if (fs::exists(r.dir + "/summary.json")) {
      r.summary = nlohmann::json::parse(ReadAll(r.dir + "/summary.json"));
    }
  }
  return r;
}

TEST(RunTest, SlhDsaArmFailsWithItsProbeAndTheOtherArmRuns) {
  TempDir tmp;
  ScenarioRun r = RunScenarioText(
      tmp, "slh",
      "title = \"slh\"\n"
      "[tls]\ngroup = \"X25519MLKEM768\"\n"
      "[load]\nmode = \"fresh\"\nrate = 50\nduration = \"2s\"\nwarmup = \"1s\"\n"
      "max_lag_p99 = \"5s\"\nmax_link_late_p99 = \"5s\"\n"  // the healthy arm must be valid on a
                                                            // loaded machine too
      "[trials]\ncount = 1\nseed = 5\n"
      "[matrix]\nchain = [\"ecdsa-p256\", \"slh-dsa-sha2-128f\"]\n");
  ASSERT_EQ(r.f.rc, 0) << Describe(r.f);
  ASSERT_FALSE(r.dir.empty());
  const nlohmann::json& summary = r.summary;
  const std::vector<std::string> dirs = {r.dir};
  ASSERT_EQ(summary["arms"].size(), 2u);
  EXPECT_EQ(summary["run"]["complete"], true);
  const auto& ok = summary["arms"][0];
  const auto& slh = summary["arms"][1];
  EXPECT_EQ(ok["factors"]["chain"], "ecdsa-p256") << ok.dump();
  Sql sql(dirs[0] + "/results.sqlite");
  ASSERT_TRUE(sql.ok()) << sql.error();
  ExpectArmMeasured(ok, sql);
  EXPECT_EQ(slh["factors"]["chain"], "slh-dsa-sha2-128f") << slh.dump();
  EXPECT_EQ(slh["status"], "failed") << slh.dump();
  ASSERT_TRUE(slh["failure"].is_string()) << slh.dump();
  const std::string why = slh["failure"];
  EXPECT_TRUE(why.find("unknown certificate type") != std::string::npos ||
              why.find("probe slh-dsa-sha2-128f: primitive ok, X.509 ok, TLS FAILS") !=
                  std::string::npos)
      << why;
  EXPECT_EQ(sql.Int("SELECT count(*) FROM trials WHERE arm_id = 2"), 0);
  EXPECT_EQ(sql.Int("SELECT count(*) FROM trials WHERE arm_id = 1"), 1);
}

}  // namespace

namespace {

// Last non-empty line of `text`.
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return {};
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// A run whose arms all failed (SLH-DSA cannot be served) measured nothing: it exits 1 without
// --strict, says so in its last line, and still writes its report of the failure.
TEST(RunTest, RunWithNoValidTrialExitsOneAndSaysSoLast) {
  TempDir tmp;
  const std::string file = tmp / "nothing.toml";
  WriteFile(file,
            "title = \"nothing valid\"\n"
            "[tls]\nchain = \"slh-dsa-sha2-128f\"\n"
            "[load]\nmode = \"fresh\"\nrate = 50\nduration = \"1s\"\nwarmup = \"0s\"\n"
            "[trials]\ncount = 1\n");
  const std::string root = tmp / "results";
  Finished f = Exec({"run", file, "--results", root}, tmp.path(), std::chrono::seconds(60));
  EXPECT_EQ(f.rc, 1) << Describe(f);
  EXPECT_NE(LastLine(f.err).find("run measured nothing: no arm produced a valid trial"),
            std::string::npos)
      << Describe(f);
  auto dirs = RunDirs(root);
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_TRUE(fs::exists(dirs[0] + "/report.html"));
  // One valid arm is enough for exit 0 (without --strict).
  const std::string mixed = tmp / "mixed.toml";
  WriteFile(mixed,
            "title = \"one arm valid\"\n"
            "[load]\nmode = \"fresh\"\nrate = 50\nduration = \"1s\"\nwarmup = \"0s\"\n"
            "max_lag_p99 = \"5s\"\nmax_link_late_p99 = \"5s\"\n"
            "[trials]\ncount = 1\n"
            "[matrix]\nchain = [\"ecdsa-p256\", \"slh-dsa-sha2-128f\"]\n");
  Finished g = Exec({"run", mixed, "--results", root}, tmp.path(), std::chrono::seconds(60));
  EXPECT_EQ(g.rc, 0) << Describe(g);
  EXPECT_EQ(g.err.find("run measured nothing"), std::string::npos) << Describe(g);
}

}  // namespace

namespace {

// ExpectArmsValid: every arm valid, or invalid only because the load generator was short of
// CPU (a sanitizer build on a shared 2-core machine), the one reason tolerated, as elsewhere.
void ExpectArmsValid(const nlohmann::json& summary) {
  for (const auto& arm : summary["arms"]) {
    EXPECT_NE(arm["status"], "failed") << arm.dump();
    if (arm["status"] == "ok") continue;
    for (const auto& t : summary["trials"]) {
      if (t["arm"] != arm["id"] || t["valid"] == true) continue;
      for (const auto& r : t["reasons"]) {
        EXPECT_NE(r.get<std::string>().find("load generator saturated"), std::string::npos)
            << arm["label"] << ": " << r;
      }
    }
  }
}

// ExternalServe: `pqc-bench serve` on 127.0.0.1 with its own chain and root (written to
// DIR/external-ca.pem) — a server the run does not start or configure.
struct ExternalServe {
  pqc::test::BenchChild child;
  std::string address, ca;
  explicit ExternalServe(const std::string& dir) : ca(dir + "/external-ca.pem") {
    child = pqc::test::SpawnBench({"serve", "--listen", "127.0.0.1:0", "--write-ca", ca, "--groups",
                                   "X25519MLKEM768:X25519", "--duration", "120s"},
                                  dir);
    address = pqc::test::ServeAddress(child).ToString();
  }
  ~ExternalServe() {
    kill(child.pid, SIGTERM);
    pqc::test::WaitBench(child, std::chrono::seconds(20));
  }
};

// A matrix over targets gives each arm its own trust: the embedded arm the run's root, the
// external arm its `ca` (before the fix, the comma-joined kinds "embedded, external" were
// compared with "external" and the external arm got the run's root: every connection failed).
TEST(RunTest, TargetMatrixVerifiesEachArmWithItsOwnTrust) {
  TempDir tmp;
  ExternalServe server(tmp.path());
  ASSERT_NE(server.address, "") << pqc::test::ReadFile(server.child.out_path);
  ScenarioRun r = RunScenarioText(
      tmp, "targets",
      "title = \"targets\"\n[target]\naddress = \"" + server.address + "\"\nca = \"" + server.ca +
          "\"\n[load]\nmode = \"fresh\"\nrate = 40\nduration = \"1s\"\n"
          "warmup = \"0s\"\nmax_lag_p99 = \"5s\"\nmax_link_late_p99 = \"5s\"\n[trials]\ncount = 1\n"
          "[matrix]\ntarget = [\"embedded\", \"external\"]\n",
      std::chrono::seconds(90));
  ASSERT_EQ(r.f.rc, 0) << Describe(r.f);
  ASSERT_FALSE(r.dir.empty());
  const nlohmann::json& summary = r.summary;
  const std::vector<std::string> dirs = {r.dir};
  ASSERT_EQ(summary["arms"].size(), 2u) << summary.dump();
  ExpectArmsValid(summary);
  for (const auto& arm : summary["arms"]) EXPECT_EQ(arm["errors"], 0) << arm.dump();
  // The external arm's server-side settings are the server's, never reported as applied.
  Sql sql(dirs[0] + "/results.sqlite");
  ASSERT_TRUE(sql.ok()) << sql.error();
  const std::vector<std::string> rows = sql.Texts("SELECT settings_json FROM arms WHERE id = 2");
  ASSERT_EQ(rows.size(), 1u);
  const std::string& settings = rows[0];
  EXPECT_NE(settings.find("\"chain\":\"as the server is configured\""), std::string::npos)
      << settings;
  EXPECT_EQ(summary["arms"][1]["factors"]["chain"], "as the server is configured");
  EXPECT_EQ(summary["arms"][0]["factors"]["chain"], "ecdsa-p256");
}

// `run SCENARIO --target HOST:PORT`: a shipped study against one's own server. Without --ca
// the system's trust store is used, which does not know this server's root: refused before
// any trial, naming the store; with --ca it runs; a matrix factor that configures the server
// is refused with its name.
TEST(RunTest, ShippedScenarioAgainstAnExternalServer) {
  TempDir tmp;
  ExternalServe server(tmp.path());
  ASSERT_NE(server.address, "") << pqc::test::ReadFile(server.child.out_path);
  const std::string root = tmp / "results";
  const std::string scenario = std::string(PQC_SOURCE_DIR) + "/scenarios/quick.toml";
  Finished untrusted =
      Exec({"run", scenario, "--target", server.address, "--results", root}, tmp.path());
  EXPECT_EQ(untrusted.rc, 2) << Describe(untrusted);
  EXPECT_NE(untrusted.err.find("failed verification against the system trust store"),
            std::string::npos)
      << Describe(untrusted);
  EXPECT_NE(untrusted.err.find("--ca FILE"), std::string::npos) << Describe(untrusted);
  EXPECT_TRUE(RunDirs(root).empty()) << "no trial may run";

  Finished ok = Exec({"run",       scenario,
                      "--target",  server.address,
                      "--ca",      server.ca,
                      "--set",     "duration=1s",
                      "--set",     "warmup=1s",
                      "--set",     "max_lag_p99=5s",
                      "--set",     "max_link_late_p99=5s",
                      "--set",     "rate=50",
                      "--trials",  "1",
                      "--results", root},
                     tmp.path(), std::chrono::seconds(120));
  ASSERT_EQ(ok.rc, 0) << Describe(ok);
  auto dirs = RunDirs(root);
  ASSERT_EQ(dirs.size(), 1u);
  auto summary = nlohmann::json::parse(ReadAll(dirs[0] + "/summary.json"));
  ASSERT_EQ(summary["arms"].size(), 4u);
  ExpectArmsValid(summary);
  // The server's CPU is the server's business: unknown (null), never a measured 0.
  for (const auto& arm : summary["arms"]) {
    EXPECT_TRUE(arm["cpu"]["server_us_per_handshake"].is_null()) << arm["cpu"].dump();
  }
  for (const auto& t : summary["trials"]) {
    EXPECT_TRUE(t["server_cpu_us_per_handshake"].is_null()) << t.dump();
  }
  EXPECT_EQ(summary["run"]["target"], "external");

  const std::string chains = tmp / "chains.toml";
  WriteFile(chains,
            "title = \"chains\"\n[load]\nrate = 20\nduration = \"1s\"\n"
            "[matrix]\nchain = [\"ecdsa-p256\", \"ml-dsa-44\"]\n");
  Finished refused =
      Exec({"run", chains, "--target", server.address, "--ca", server.ca, "--results", root},
           tmp.path());
  EXPECT_EQ(refused.rc, 2) << Describe(refused);
  EXPECT_NE(refused.err.find("matrix.chain sets chain"), std::string::npos) << Describe(refused);
  EXPECT_EQ(RunDirs(root).size(), 1u) << "the refused run made no directory";
}

// RunShipped: a shipped scenario, short (1 s trials, one of each), into `root`; the run must
// succeed and leave one run directory, whose summary it returns.
nlohmann::json RunShipped(const TempDir& tmp, const std::string& name, const std::string& root,
                          std::vector<std::string> extra, std::string& dir) {
  std::vector<std::string> args = {"run",       std::string(PQC_SOURCE_DIR) + "/scenarios/" + name,
                                   "--set",     "duration=1s",
                                   "--set",     "warmup=1s",
                                   "--set",     "rate=40",
                                   "--set",     "max_lag_p99=5s",
                                   "--set",     "max_link_late_p99=5s",
                                   "--trials",  "1",
                                   "--results", root};
  args.insert(args.end(), extra.begin(), extra.end());
  Finished f = Exec(args, tmp.path(), std::chrono::seconds(120));
  EXPECT_EQ(f.rc, 0) << Describe(f);
  auto dirs = RunDirs(root);
  if (dirs.size() != 1) {
    ADD_FAILURE() << "expected one run directory under " << root;
    return {};
  }
  dir = dirs[0];
  return nlohmann::json::parse(ReadAll(dir + "/summary.json"));
}

// The shipped dual-certificate study, short, on the embedded server and on nginx: each client
// kind is served the chain its sigalgs ask for (every measured connection, from the database),
// and the ML-DSA clients' Certificate message is the larger.
TEST(RunTest, DualCertificateScenarioServesEachClientKindItsChain) {
  TempDir tmp;
  for (const char* target : {"embedded", "nginx"}) {
    SCOPED_TRACE(target);
    std::string dir;
    auto summary =
        RunShipped(tmp, "11-dual-certificate.toml", tmp / (std::string("r-") + target),
                   {"--only", "network=loopback", "--set", std::string("target=") + target}, dir);
    ASSERT_EQ(summary["arms"].size(), 3u) << summary.dump();
    ExpectArmsValid(summary);
    Sql sql(dir + "/results.sqlite");
    ASSERT_TRUE(sql.ok()) << sql.error();
    // Per client kind: the schemes its measured connections were served, and the largest
    // Certificate message.
    const auto rows = sql.Texts(
        "SELECT json_extract(a.factors_json, '$.client') || ' ' || c.signature_scheme || ' ' || "
        "MAX(c.certificate_bytes) FROM connections c JOIN trials t ON t.id = c.trial_id JOIN arms "
        "a ON a.id = t.arm_id WHERE c.measured = 1 GROUP BY a.id, c.signature_scheme ORDER BY "
        "a.id");
    ASSERT_EQ(rows.size(), 3u) << "one scheme per client kind";
    std::map<std::string, std::pair<int, int>> seen;  // kind → scheme, certificate bytes
    for (const std::string& r : rows) {
      std::istringstream in(r);
      std::string kind;
      int scheme = 0, bytes = 0;
      in >> kind >> scheme >> bytes;
      seen[kind] = {scheme, bytes};
    }
    EXPECT_EQ(seen["ecdsa"].first, 0x0403);
    EXPECT_EQ(seen["ml-dsa"].first, 0x0905);
    EXPECT_EQ(seen["classical"].first, 0x0403);
    EXPECT_GT(seen["ml-dsa"].second, seen["ecdsa"].second + 4000);
  }
}

// The shipped protocols study, short, as root at its 70 ms network with the hybrid, on the
// embedded server, nginx and HAProxy: h1, h2 and h3 side by side on one server per trial; an h3
// arm has no connect phase, an h2 arm the model's TCP round trips as h1's, and the report's
// round-trip table gives each h3 arm the QUIC model's expectation (an ecdsa-p256 flight within the
// Initials' 3× budget: 1; ml-dsa-65's beyond it: 2), which the measurement meets.
TEST(RunTest, QuicScenarioPutsH1AndH3SideBySide) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (the emulated network)";
  TempDir tmp;
  for (const char* target : {"embedded", "nginx", "haproxy"}) {
    SCOPED_TRACE(target);
    std::string md;
    // The round trips are a timing (below): a target whose count comes out UNEXPECTED is
    // measured once more before it fails, as h2load_crosscheck does. Beside the release
    // stage's other tests and the trees built behind them, an h3 ml-dsa-65 arm's p50 once took
    // 2.6-2.7 round trips against nginx and HAProxy (CI emulation, 2026-12-08); a model that
    // is wrong is wrong twice.
    for (int attempt = 1; attempt <= 2; ++attempt) {
      std::string dir;
      auto summary = RunShipped(
          tmp, "14-quic.toml", tmp / (std::string("r-") + target + "-" + std::to_string(attempt)),
          {"--only", "network=rtt70", "--only", "group=X25519MLKEM768", "--only",
           "chain=ecdsa-p256,ml-dsa-65", "--set", std::string("target=") + target},
          dir);
      ASSERT_EQ(summary["arms"].size(), 6u) << summary.dump();
      ExpectArmsValid(summary);
      for (const auto& arm : summary["arms"]) {
        ASSERT_NE(arm["status"], "failed") << arm["failure"];
        const bool h3 = arm["factors"]["protocol"] == "h3";
        EXPECT_EQ(arm["phases"].contains("connect"), !h3) << arm["label"];
        EXPECT_GT(arm["phases"]["handshake"]["count"].get<int64_t>(), 0) << arm["label"];
      }
      Sql sql(dir + "/results.sqlite");
      ASSERT_TRUE(sql.ok()) << sql.error();
      // Every h3 connection over QUIC with its Initials; every h1 one over TCP.
      EXPECT_EQ(
          sql.Int("SELECT count(*) FROM connections c JOIN trials t ON t.id = c.trial_id JOIN "
                  "arms a ON a.id = t.arm_id WHERE json_extract(a.factors_json, '$.protocol') "
                  "<> c.protocol"),
          0);
      EXPECT_EQ(sql.Int("SELECT count(*) FROM connections WHERE protocol = 'h3' AND tls_done > 0 "
                        "AND initial_datagrams <> 2"),
                0);
      EXPECT_GT(sql.Int("SELECT count(*) FROM connections WHERE protocol = 'h3' AND "
                        "amplification_limited = 1 AND certificate_bytes > 5000"),
                0);
      EXPECT_EQ(sql.Int("SELECT count(*) FROM connections WHERE protocol = 'h3' AND "
                        "amplification_limited = 1 AND certificate_bytes < 1000"),
                0);
      md = ReadAll(dir + "/summary.md");
      EXPECT_NE(md.find("2 (QUIC: 10648 B flight > 3 × 2400 B of Initials)"), std::string::npos)
          << md;
#if defined(__SANITIZE_ADDRESS__)
      break;  // the round trips are not judged here (below): one attempt
#else
      if (md.find("UNEXPECTED") == std::string::npos || attempt == 2) break;
      std::cout << target << ": round trips UNEXPECTED on the first attempt: measuring once more\n";
#endif
    }
#if !defined(__SANITIZE_ADDRESS__)
    // Round trips are a timing: an ASan server, at -O0 beside another test on two cores, once
    // added 50 ms to the h3 ml-dsa-65 handshake at 70 ms (2.71 round trips, counted 3). The
    // release and TSan builds judge it; the ASan build checks everything above.
    EXPECT_EQ(md.find("UNEXPECTED"), std::string::npos) << md;
#endif
  }
}

// The FIPS provider study, short: the default and FIPS arms run side by side, the server
// under the arm's providers, and every arm is valid (X25519MLKEM768 is allowed under
// fips=yes: OpenSSL 3.5's FIPS provider implements the hybrid, though not X25519 alone).
TEST(RunTest, FipsProviderScenarioRunsDefaultAndFipsArms) {
  TempDir tmp;
  std::string dir;
  auto summary =
      RunShipped(tmp, "12-fips-provider.toml", tmp / "results", {"--only", "chain=ml-dsa-65"}, dir);
  ASSERT_EQ(summary["arms"].size(), 6u) << summary.dump();
  ExpectArmsValid(summary);
  Sql sql(dir + "/results.sqlite");
  ASSERT_TRUE(sql.ok()) << sql.error();
  const auto settings = sql.Texts("SELECT settings_json FROM arms ORDER BY id");
  ASSERT_EQ(settings.size(), 6u);
  EXPECT_NE(settings[5].find("\"providers\":\"fips,base\""), std::string::npos) << settings[5];
  EXPECT_NE(settings[0].find("\"providers\":\"default\""), std::string::npos) << settings[0];

  // A provider that is not there stops the run before any trial, naming it.
  Finished missing = Exec({"run", std::string(PQC_SOURCE_DIR) + "/scenarios/quick.toml",
                           "--provider", "nosuch", "--results", tmp / "missing"},
                          tmp.path());
  EXPECT_EQ(missing.rc, 2) << Describe(missing);
  EXPECT_NE(missing.err.find("provider 'nosuch' could not be loaded from"), std::string::npos)
      << Describe(missing);
  EXPECT_TRUE(RunDirs(tmp / "missing").empty()) << "no trial may run";
}

}  // namespace

namespace {

// KeyPaths: every key path of a JSON document ("run.network", "arms[].phases.handshake.p50"),
// array elements merged under "[]" — the document's shape, without its values.
void KeyPaths(const nlohmann::json& j, const std::string& at, std::set<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      const std::string path = at.empty() ? k : at + "." + k;
      out.insert(path);
      KeyPaths(v, path, out);
    }
  } else if (j.is_array()) {
    for (const auto& v : j) KeyPaths(v, at + "[]", out);
  }
}

// The report tests read fixtures made from real runs (tests/data/make_fixtures.sh). A summary
// the tool writes today must have the fixture's shape, key for key: a field added, renamed or
// dropped fails here until the fixtures are made again, so they cannot drift from the tool.
TEST(RunTest, SummaryHasTheShapeOfTheReportFixtures) {
  const CompletedRun& r = SharedRun();
  ASSERT_EQ(r.result.rc, 0) << Describe(r.result);
  auto live = nlohmann::json::parse(ReadAll(r.dir + "/summary.json"));
  auto fixture = nlohmann::json::parse(
      ReadAll(std::string(PQC_SOURCE_DIR) + "/tests/data/summary_fresh_study.json"));
  std::set<std::string> live_paths, fixture_paths;
  KeyPaths(live, "", live_paths);
  KeyPaths(fixture, "", fixture_paths);
  std::vector<std::string> only_live, only_fixture;
  std::set_difference(live_paths.begin(), live_paths.end(), fixture_paths.begin(),
                      fixture_paths.end(), std::back_inserter(only_live));
  std::set_difference(fixture_paths.begin(), fixture_paths.end(), live_paths.begin(),
                      live_paths.end(), std::back_inserter(only_fixture));
  // Outliers are data-dependent (a trial far from the others), and so is a comparison's plan
  // (null when the variance components cannot be estimated or the plan is out of reach):
  // their keys may be in either.
  auto data_dependent = [](const std::string& p) {
    return p.find(".outliers[].") != std::string::npos || p.find(".plan.") != std::string::npos;
  };
  std::erase_if(only_live, data_dependent);
  std::erase_if(only_fixture, data_dependent);
  EXPECT_TRUE(only_live.empty()) << "written by the tool, missing from the fixtures (run "
                                    "tests/data/make_fixtures.sh): "
                                 << ::testing::PrintToString(only_live);
  EXPECT_TRUE(only_fixture.empty()) << "in the fixtures, no longer written by the tool: "
                                    << ::testing::PrintToString(only_fixture);
}

}  // namespace
