// A results directory that fills during a run (a small tmpfs the test mounts; root only):
// the trial whose rows no longer fit is refused with an error naming the directory, the room
// it needs and what is free; the trials stored before it stay intact and `report` reads them
// while the disk is still full; a resume before space is freed stops before measuring
// anything; once space is freed, `run --resume` completes the study.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench_child.h"

namespace pqc {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Tmpfs: a small tmpfs mounted at `dir` for the test's lifetime (detached at the end).
class Tmpfs {
 public:
  Tmpfs(const std::string& dir, const std::string& size) : dir_(dir) {
    fs::create_directories(dir);
    mounted_ = mount("tmpfs", dir.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
  }
  ~Tmpfs() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

// FillUp: writes `path` until the filesystem refuses another byte; the bytes written.
uint64_t FillUp(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return 0;
  std::vector<char> block(64 * 1024, 'x');
  uint64_t total = 0;
  // Bounded: the filesystem is a few tens of MB; the first short or failed write ends it.
  for (size_t want = block.size(); want > 0;) {
    const ssize_t n = write(fd, block.data(), want);
    if (n <= 0) {
      want /= 2;  // the last blocks: fill the partial remainder too
      continue;
    }
    total += static_cast<uint64_t>(n);
  }
  close(fd);
  return total;
}

int64_t Count(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

TEST(FullDiskTest, NoStoredTrialIsLostAndResumeFinishesOnceThereIsRoom) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  test::TempDir tmp("pqc-full-disk");
  const std::string volume = tmp.path() + "/volume";
  Tmpfs small(volume, "48m");
  ASSERT_TRUE(small.mounted()) << "mount tmpfs on " << volume;
  const std::string scenario = tmp.path() + "/six.toml";
  test::WriteFile(
      scenario,
      "title = \"six\"\n[tls]\nchain = \"ecdsa-p256\"\n"
      "[load]\nmode = \"fresh\"\nrate = 100\nduration = \"2s\"\nwarmup = \"1s\"\n"
      "max_lag_p99 = \"5s\"\nmax_link_late_p99 = \"5s\"\n[trials]\ncount = 3\nseed = 11\n"
      "[matrix]\ngroup = [\"X25519\", \"X25519MLKEM768\"]\n");
  test::BenchChild run =
      test::SpawnBench({"run", scenario, "--results", volume + "/results"}, tmp.path());
  // Into the third trial's load (two stored), then the filesystem is filled to the last byte.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool third_loading = false;
  while (!third_loading && std::chrono::steady_clock::now() < deadline) {
    const std::string out = test::ReadFile(run.out_path);
    const size_t third = out.find("[3/6]");
    third_loading = third != std::string::npos && out.find("s / 3.0s]", third) != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(third_loading) << test::ReadFile(run.out_path);
  const std::string ballast = volume + "/ballast";
  ASSERT_GT(FillUp(ballast), 0u);
  test::BenchExit full = test::WaitBench(run, std::chrono::seconds(120));
  EXPECT_EQ(full.code, 3) << full.output;
  const std::vector<std::string> dirs = test::RunDirs(volume + "/results");
  ASSERT_EQ(dirs.size(), 1u);
  const std::string dir = dirs[0];
  EXPECT_TRUE(Contains(full.output, "the results directory " + dir + " is out of room"))
      << full.output;
  EXPECT_TRUE(Contains(full.output, "trial 3 of 6")) << full.output;
  EXPECT_TRUE(Contains(full.output, "needs about")) << full.output;
  EXPECT_TRUE(Contains(full.output, "The 2 trial(s) stored before it are intact")) << full.output;
  EXPECT_TRUE(Contains(full.output, "pqc-bench run --resume " + dir)) << full.output;

  // The two stored trials, whole, while the disk is still full.
  const std::string db = dir + "/results.sqlite";
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 2);
  EXPECT_GT(Count(db, "SELECT count(*) FROM connections"), 300);
  EXPECT_EQ(Count(db,
                  "SELECT count(*) FROM connections WHERE trial_id NOT IN "
                  "(SELECT id FROM trials)"),
            0);
  test::BenchChild report = test::SpawnBench({"report", dir}, tmp.path());
  test::BenchExit r = test::WaitBench(report, std::chrono::seconds(60));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "INCOMPLETE")) << r.output;

  // Resumed while still full: refused before any trial is measured.
  test::BenchChild early = test::SpawnBench({"run", "--resume", dir}, tmp.path());
  test::BenchExit e = test::WaitBench(early, std::chrono::seconds(120));
  EXPECT_EQ(e.code, 3) << e.output;
  EXPECT_TRUE(Contains(e.output, "is out of room")) << e.output;
  EXPECT_FALSE(Contains(e.output, "connections, ")) << "a trial was measured: " << e.output;
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 2);

  // Room again: the resume finishes the study.
  fs::remove(ballast);
  test::BenchChild resume = test::SpawnBench({"run", "--resume", dir}, tmp.path());
  test::BenchExit done = test::WaitBench(resume, std::chrono::seconds(180));
  EXPECT_EQ(done.code, 0) << done.output;
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 6);
  EXPECT_EQ(Count(db, "SELECT complete FROM run"), 1);
}

}  // namespace
}  // namespace pqc
