// child_process — fork/exec with an exec-error pipe, wait4 accounting and bounded reaping.
#include "core/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include "core/cpu_affinity.h"
#include "core/fd.h"

extern char** environ;

namespace pqc {
namespace {

// What the child reports through the pipe when a step before exec fails.
struct ChildFailure {
  int step;  // index into kSteps
  int err;
};
constexpr const char* kSteps[] = {"prctl(PR_SET_PDEATHSIG)", "setns", "dup2", "exec", "setpgid",
                                  "sched_setaffinity"};

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

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

// The child between fork and exec: async-signal-safe calls only (the parent may have threads).
// out_fd >= 0 becomes stdout (and stderr too when `both`, with stdin from /dev/null).
[[noreturn]] void RunChild(int report_fd, int in_fd, int out_fd, bool both, int ns_fd,
                           int death_signal, bool group, const cpu_set_t* cpus, pid_t parent,
                           const char* exe, char* const* argv, char* const* envp) {
  auto fail = [report_fd](int step) {
    ChildFailure f{step, errno};
    ssize_t n = write(report_fd, &f, sizeof f);
    (void)n;
    _exit(127);
  };
  if (prctl(PR_SET_PDEATHSIG, death_signal) != 0) fail(0);
  if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
  if (group && setpgid(0, 0) != 0) fail(4);
  if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) != 0) fail(1);
  if (cpus != nullptr && sched_setaffinity(0, sizeof *cpus, cpus) != 0) fail(5);
  if (out_fd >= 0) {
    if (both) {
      int devnull = open("/dev/null", O_RDONLY);
      if (devnull >= 0) dup2(devnull, 0);
      if (dup2(out_fd, 2) < 0) fail(2);
    }
    if (dup2(out_fd, 1) < 0) fail(2);
  }
  if (in_fd >= 0 && dup2(in_fd, 0) < 0) fail(2);
  // The parent may block or ignore signals (serve blocks SIGINT/SIGTERM for sigwait); both
  // survive exec, and a server that cannot receive SIGTERM could not be stopped politely.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2}) {
    sigaction(sig, &dfl, nullptr);
  }
  execve(exe, argv, envp);
  fail(3);
  _exit(127);
}

}  // namespace

std::string ChildExit::Describe() const {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  return fmt::format("wait status {:#x}", status);
}

int ChildExit::ShellCode() const {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

Result<ChildProcess> ChildProcess::Spawn(const SpawnOptions& o) {
  if (o.argv.empty()) return MakeError(ErrorKind::kUsage, "spawn: empty command line");
  auto program = ResolveProgram(o.argv[0]);
  if (!program) return program.error();
  const std::string& exe = *program;
  ScopedFd out;
  if (!o.output_path.empty()) {
    // Written as the child runs (a log), so not renamed into place: O_NOFOLLOW instead, so a
    // symbolic link planted at the path is refused, not written through.
    out.reset(
        open(o.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666));
    if (!out.valid()) {
      return MakeError(ErrorKind::kIo,
                       fmt::format("{}: cannot create output file {}: {}", exe, o.output_path,
                                   errno == ELOOP ? "it is a symbolic link (pqc-bench never "
                                                    "writes through one)"
                                                  : strerror(errno)));
    }
  }
  const int out_fd = out.valid() ? out.get() : o.stdout_fd;
  ScopedFd ns;
  if (!o.netns_path.empty()) {
    ns.reset(open(o.netns_path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!ns.valid()) {
      return MakeError(ErrorKind::kSystem, fmt::format("{}: cannot open network namespace {}: {}",
                                                       exe, o.netns_path, strerror(errno)));
    }
  }
  std::optional<cpu_set_t> cpus;
  if (!o.cpus.empty()) {
    auto set = CpuSetOf(o.cpus, o.cpus_setting);
    if (!set) return set.error();
    cpus = *set;
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return MakeError(ErrorKind::kSystem, fmt::format("pipe2: {}", strerror(errno)));
  }
  ScopedFd report_read(pipe_fds[0]), report_write(pipe_fds[1]);

  // Everything the child needs is built before fork: it may not allocate afterwards.
  std::vector<std::string> args = o.argv;
  std::vector<std::string> env = MergedEnvironment(o.env);
  std::vector<char*> argv = CStrings(args);
  std::vector<char*> envp = CStrings(env);

  const pid_t parent = getpid();
  ChildProcess child;
  child.started_ = MonotonicNow();
  pid_t pid = fork();
  if (pid < 0) return MakeError(ErrorKind::kSystem, fmt::format("fork: {}", strerror(errno)));
  if (pid == 0) {
    RunChild(report_write.get(), o.stdin_fd, out_fd, out.valid(), ns.valid() ? ns.get() : -1,
             o.death_signal, o.process_group, cpus ? &*cpus : nullptr, parent, exe.c_str(),
             argv.data(), envp.data());
  }
  child.pid_ = pid;
  child.group_ = o.process_group;
  // Set from both sides so that the group exists whichever of the two runs first (the
  // child's own call may fail once it has exec'd: EACCES, harmless).
  if (o.process_group) (void)setpgid(pid, pid);
  // A pidfd of our own unreaped child cannot name another process (its pid is not reused
  // before we reap it).
  child.pidfd_.reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  if (!child.pidfd_.valid()) {
    return MakeError(ErrorKind::kSystem, fmt::format("pidfd_open({}): {}", pid, strerror(errno)));
  }
  report_write.reset();
  ChildFailure failure{};
  ssize_t n;
  do {
    n = read(report_read.get(), &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof failure)) {
    child.Reap(0);
    return MakeError(
        failure.step == 3 ? ErrorKind::kIo : ErrorKind::kSystem,
        fmt::format("cannot start {}: {} failed: {}{}", exe, kSteps[failure.step],
                    strerror(failure.err), failure.step == 1 ? " (" + o.netns_path + ")" : ""));
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      pidfd_(std::move(other.pidfd_)),
      group_(other.group_),
      stop_requested_(other.stop_requested_),
      started_(other.started_),
      exit_(std::move(other.exit_)) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    Kill();
    pid_ = std::exchange(other.pid_, -1);
    pidfd_ = std::move(other.pidfd_);
    group_ = other.group_;
    stop_requested_ = other.stop_requested_;
    started_ = other.started_;
    exit_ = std::move(other.exit_);
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  Kill();
}

void ChildProcess::Kill() {
  if (pid_ <= 0 || exit_) return;
  stop_requested_ = true;
  kill(group_ ? -pid_ : pid_, SIGKILL);
  Reap(0);
}

bool ChildProcess::Reap(int options) {
  if (exit_) return true;
  if (pid_ <= 0) return false;
  int status = 0;
  rusage ru{};
  pid_t r;
  do {
    r = wait4(pid_, &status, options, &ru);
  } while (r < 0 && errno == EINTR);
  if (r != pid_) return false;
  // What is left of its group (workers whose master died) goes with it. While any member
  // lives, the group's id cannot be taken by a new process; with none left, kill finds none.
  if (group_) (void)kill(-pid_, SIGKILL);
  ChildExit e;
  e.status = status;
  e.unasked = !stop_requested_;
  e.cpu_user_s = Seconds(ru.ru_utime);
  e.cpu_sys_s = Seconds(ru.ru_stime);
  e.wall_s = static_cast<double>(MonotonicNow() - started_) / 1e9;
  exit_ = e;
  return true;
}

bool ChildProcess::Exited() {
  return Reap(WNOHANG);
}

Result<ChildExit> ChildProcess::WaitExit(Nanos timeout) {
  if (pid_ <= 0) return MakeError(ErrorKind::kSystem, "wait: no child process");
  const Nanos deadline = MonotonicNow() + timeout;
  // Bounded: polls every 2 ms until the timeout.
  while (!Reap(WNOHANG)) {
    if (MonotonicNow() >= deadline) {
      return MakeError(ErrorKind::kSystem, fmt::format("process {} still running after {:.1f} s",
                                                       pid_, static_cast<double>(timeout) / 1e9));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return *exit_;
}

Result<ChildExit> ChildProcess::Terminate(Nanos grace) {
  if (pid_ <= 0) return MakeError(ErrorKind::kSystem, "terminate: no child process");
  if (Reap(WNOHANG)) return *exit_;
  stop_requested_ = true;
  kill(pid_, SIGTERM);
  const Nanos deadline = MonotonicNow() + grace;
  // Bounded: polls every 2 ms until the grace period is over.
  while (MonotonicNow() < deadline) {
    if (Reap(WNOHANG)) return *exit_;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(group_ ? -pid_ : pid_, SIGKILL);
  if (!Reap(0)) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("wait4({}) failed after SIGKILL: {}", pid_, strerror(errno)));
  }
  exit_->killed = true;
  return *exit_;
}

}  // namespace pqc
