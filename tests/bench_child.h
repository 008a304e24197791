// bench_child — the `pqc-bench` binary as a child process of a test: output to files (never a
// pipe, which a grandchild such as a `serve` target could hold open), a bounded wait that
// kills on timeout, and the address a `serve` child prints first.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "net/address.h"

namespace pqc::test {

struct BenchChild {
  pid_t pid = -1;
  std::string out_path;  // stdout, and stderr interleaved unless err_path is set
  std::string err_path;  // stderr apart (SpawnBenchApart)
};

struct BenchExit {
  int code = -1;  // exit status, or 128 + signal
  bool timed_out = false;
  std::string output;
  std::string errors;  // stderr, when spawned apart (else it is in `output`)
  double seconds = 0;  // from spawn to exit
};

// SpawnBench: PQC_BENCH_BIN with args; `shell_prefix` (run by bash -c before exec, e.g.
// "ulimit -n 64") or `wrapper` (an absolute path first, e.g. {"/usr/bin/unshare", "--net"}) change
// the child's environment.
BenchChild SpawnBench(const std::vector<std::string>& args, const std::string& io_dir,
                      const std::string& shell_prefix = {},
                      const std::vector<std::string>& wrapper = {});

// SpawnBenchApart: the same, with stderr in a file of its own (a test that reads a report on
// stdout and the progress lines on stderr).
BenchChild SpawnBenchApart(const std::vector<std::string>& args, const std::string& io_dir);

// WaitBench: waits at most `limit` (then SIGKILL); fails the test on a sanitizer report.
BenchExit WaitBench(const BenchChild& child, std::chrono::seconds limit);

// ServeAddress: the address in a `serve` child's first line ("listening on ADDR ..."), waiting
// at most 20 s; nullopt-like empty address (len 0) if it never came.
SocketAddress ServeAddress(const BenchChild& child);

// Processes, from /proc: pids whose command line contains `needle`; the children of `parent`
// (its ppid field); whether `pid` runs (exists and is not a zombie — an orphan that init has
// not reaped yet no longer runs).
std::vector<pid_t> PidsMentioning(const std::string& needle);
std::vector<pid_t> ChildrenOf(pid_t parent);
bool Running(pid_t pid);
// VmRssKb: resident memory of a process in KiB, from /proc/PID/status (-1 if it is gone).
long VmRssKb(pid_t pid);

// ReadFile: the whole file ("" if missing).
std::string ReadFile(const std::string& path);
// WriteFile: replaces the file's content with `text`.
void WriteFile(const std::string& path, const std::string& text);
// RunDirs: the run directories under a results root.
std::vector<std::string> RunDirs(const std::string& root);

// TempDir: a new directory under the test's temporary directory, removed with everything in
// it (results databases, child output) when the test ends.
class TempDir {
 public:
  explicit TempDir(const std::string& stem = "pqc-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // a / "name": a path inside it.
  std::string operator/(const std::string& name) const;

 private:
  std::string path_;
};

// FinishedRun: a `pqc-bench run` child: its exit (-2 when it timed out), its output and the one
// run directory it made ("" unless exactly one).
struct FinishedRun {
  int rc = -1;
  std::string out, err;
  std::string dir;
};

// RunScenarioText: writes `text` to tmp/`file` and runs `pqc-bench run FILE --results
// tmp/results ARGS…` in tmp (stderr apart), waiting at most `limit`.
FinishedRun RunScenarioText(const TempDir& tmp, const std::string& file, const std::string& text,
                            const std::vector<std::string>& args, std::chrono::seconds limit);
// Describe: its exit and both outputs, for a failed expectation's message.
std::string Describe(const FinishedRun& f);

}  // namespace pqc::test
