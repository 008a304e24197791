// child_process — fork/exec with an exec-error pipe, and bounded reaping.
#include "link/child_process.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include "link/netns.h"
#include "net/fd.h"

extern char** environ;

namespace pqc::link {
namespace {

// ResolveProgram: argv[0] as a path to execute (PATH search done here, before fork).
Result<std::string> ResolveProgram(const std::string& name) {
  if (name.empty()) return MakeError(ErrorKind::kUsage, "empty command");
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return MakeError(ErrorKind::kUsage, fmt::format("command not found in PATH: {}", name));
}

std::vector<std::string> MergedEnvironment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& x : extra) replaced |= x.compare(0, name.size() + 1, name + "=") == 0;
    if (!replaced) env.push_back(std::move(entry));
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

Result<ChildProcess> ChildProcess::Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return MakeError(ErrorKind::kUsage, "no command to run");
  auto program = ResolveProgram(options.argv[0]);
  if (!program) return program.error();
  std::vector<std::string> args = options.argv;
  std::vector<std::string> env = MergedEnvironment(options.extra_env);
  std::vector<char*> argv = CStrings(args);
  std::vector<char*> envp = CStrings(env);
  const char* netns = options.netns_path.empty() ? nullptr : options.netns_path.c_str();
  const char* exe = program->c_str();

  int report[2];  // the child writes its exec errno here; close-on-exec means success
  if (pipe2(report, O_CLOEXEC) != 0) {
    return MakeError(ErrorKind::kSystem, fmt::format("pipe: {}", std::strerror(errno)));
  }
  ScopedFd read_end(report[0]), write_end(report[1]);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return MakeError(ErrorKind::kSystem, fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    if (options.parent_death_signal != 0) {
      prctl(PR_SET_PDEATHSIG, static_cast<unsigned long>(options.parent_death_signal));
      if (getppid() != parent) _exit(127);
    }
    if (netns != nullptr) EnterNetnsForExec(netns);
    if (options.stdout_fd >= 0) dup2(options.stdout_fd, STDOUT_FILENO);
    execve(exe, argv.data(), envp.data());
    int err = errno;
    ssize_t ignored = write(write_end.get(), &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  write_end.reset();
  ChildProcess child(pid);
  int err = 0;
  ssize_t n;
  do {
    n = read(read_end.get(), &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof err)) {
    child.Terminate(SIGKILL, 0);
    return MakeError(ErrorKind::kUsage,
                     fmt::format("cannot run {}: {}", options.argv[0], std::strerror(err)));
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), status_(other.status_) {}

ChildProcess::~ChildProcess() {
  if (running()) Terminate(SIGTERM, 2'000'000'000);
}

std::optional<int> ChildProcess::TryWait() {
  if (pid_ <= 0 || status_) return status_;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) status_ = status;
  return status_;
}

int ChildProcess::Terminate(int sig, Nanos grace) {
  if (!running()) return status_.value_or(0);
  if (TryWait()) return *status_;
  kill(pid_, sig);
  const Nanos deadline = MonotonicNow() + grace;
  while (!TryWait() && MonotonicNow() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!status_) {
    kill(pid_, SIGKILL);
    int status = 0;
    if (waitpid(pid_, &status, 0) == pid_) status_ = status;
  }
  return status_.value_or(0);
}

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

}  // namespace pqc::link
