#include "bench_child.h"
#include "test_paths.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace pqc::test {

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::vector<std::string> RunDirs(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
    if (e.is_directory()) out.push_back(e.path().string());
  }
  return out;
}

namespace {

// ProcStat: the state letter and ppid of /proc/<pid>/stat (state 0 if it is gone).
struct ProcStat {
  char state = 0;
  pid_t ppid = 0;
};
ProcStat ReadStat(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string stat;
  std::getline(in, stat);
  ProcStat out;
  const size_t close = stat.rfind(')');  // the command name may hold spaces and ')'
  if (close == std::string::npos || close + 2 > stat.size()) return out;
  std::istringstream rest(stat.substr(close + 2));
  rest >> out.state >> out.ppid;
  return out;
}

std::vector<std::string> ProcPids() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") == std::string::npos) out.push_back(name);
  }
  return out;
}

}  // namespace

std::vector<pid_t> PidsMentioning(const std::string& needle) {
  std::vector<pid_t> out;
  for (const std::string& pid : ProcPids()) {
    if (ReadFile("/proc/" + pid + "/cmdline").find(needle) != std::string::npos) {
      out.push_back(std::stoi(pid));
    }
  }
  return out;
}

std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  for (const std::string& pid : ProcPids()) {
    if (ReadStat(pid).ppid == parent) out.push_back(std::stoi(pid));
  }
  return out;
}

bool Running(pid_t pid) {
  const char state = ReadStat(std::to_string(pid)).state;
  return state != 0 && state != 'Z' && state != 'X';
}

long VmRssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TempDir::TempDir(const std::string& stem) {
  std::string tmpl = (std::filesystem::path(::testing::TempDir()) / (stem + "-XXXXXX")).string();
  const char* p = mkdtemp(tmpl.data());
  EXPECT_NE(p, nullptr) << tmpl;
  if (p != nullptr) path_ = p;
}

std::string TempDir::operator/(const std::string& name) const {
  return (std::filesystem::path(path_) / name).string();
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

namespace {

BenchChild Spawn(const std::vector<std::string>& args, const std::string& io_dir,
                 const std::string& shell_prefix, const std::vector<std::string>& wrapper,
                 bool apart) {
  static int n = 0;
  BenchChild c;
  c.out_path = (std::filesystem::path(io_dir) / ("child-" + std::to_string(++n) + ".txt")).string();
  if (apart) {
    c.err_path = (std::filesystem::path(io_dir) / ("child-" + std::to_string(n) + ".err")).string();
  }
  std::vector<std::string> all = wrapper;
  if (!shell_prefix.empty()) {
    // bash -c 'PREFIX; exec "$0" "$@"' BIN ARGS...: the arguments are never re-parsed.
    all.insert(all.end(), {"/bin/bash", "-c", shell_prefix + "; exec \"$0\" \"$@\""});
  }
  all.push_back(PQC_BENCH_BIN);
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Everything the child needs is made before fork: only async-signal-safe calls after it.
  c.pid = fork();
  if (c.pid == 0) {
    const int fd = open(c.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = apart ? open(c.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644) : fd;
    if (fd < 0 || err < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) {
      _exit(127);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  return c;
}

}  // namespace

BenchChild SpawnBench(const std::vector<std::string>& args, const std::string& io_dir,
                      const std::string& shell_prefix, const std::vector<std::string>& wrapper) {
  return Spawn(args, io_dir, shell_prefix, wrapper, /*apart=*/false);
}

BenchChild SpawnBenchApart(const std::vector<std::string>& args, const std::string& io_dir) {
  return Spawn(args, io_dir, {}, {}, /*apart=*/true);
}

BenchExit WaitBench(const BenchChild& c, std::chrono::seconds limit) {
  BenchExit e;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + limit;
  int status = 0;
  for (;;) {
    pid_t r = waitpid(c.pid, &status, WNOHANG);
    if (r == c.pid) break;
    if (r < 0) return e;
    if (std::chrono::steady_clock::now() >= deadline) {
      e.timed_out = true;
      kill(c.pid, SIGKILL);
      waitpid(c.pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  e.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  e.output = ReadFile(c.out_path);
  if (!c.err_path.empty()) e.errors = ReadFile(c.err_path);
  // In a sanitizer build a report exits 1 (ASan), which some cases expect for other reasons.
  for (const char* report : {"AddressSanitizer", "LeakSanitizer", ": runtime error:"}) {
    EXPECT_EQ(e.output.find(report), std::string::npos) << "sanitizer report:\n" << e.output;
    EXPECT_EQ(e.errors.find(report), std::string::npos) << "sanitizer report:\n" << e.errors;
  }
  return e;
}

SocketAddress ServeAddress(const BenchChild& c) {
  const std::string prefix = "listening on ";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string out = ReadFile(c.out_path);
    const size_t at = out.find(prefix);
    if (at != std::string::npos && out.find('\n', at) != std::string::npos) {
      const size_t start = at + prefix.size();
      auto addr = ParseAddress(out.substr(start, out.find_first_of(" \n", start) - start));
      if (addr) return *addr;
      ADD_FAILURE() << "cannot read the address in: " << out;
      return {};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "serve printed no address: " << ReadFile(c.out_path);
  return {};
}

FinishedRun RunScenarioText(const TempDir& tmp, const std::string& file, const std::string& text,
                            const std::vector<std::string>& args, std::chrono::seconds limit) {
  const std::string path = tmp / file;
  WriteFile(path, text);
  std::vector<std::string> argv = {"run", path, "--results", tmp / "results"};
  argv.insert(argv.end(), args.begin(), args.end());
  const BenchExit e = WaitBench(SpawnBenchApart(argv, tmp.path()), limit);
  FinishedRun f{.rc = e.timed_out ? -2 : e.code, .out = e.output, .err = e.errors, .dir = {}};
  const std::vector<std::string> dirs = RunDirs(tmp / "results");
  if (dirs.size() == 1) f.dir = dirs[0];
  return f;
}

std::string Describe(const FinishedRun& f) {
  return "exit " + std::to_string(f.rc) + "\n--- stdout:\n" + f.out + "\n--- stderr:\n" + f.err;
}

}  // namespace pqc::test
