// run_over_link — the link's lifetime around a server and one command.
#include "link/run_over_link.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "core/child_process.h"
#include "core/fd.h"
#include "link/link.h"

namespace pqc::link {
namespace {

constexpr Nanos kSecond = 1'000'000'000;
constexpr Nanos kServerStartTimeout = 60 * kSecond;
constexpr Nanos kCommandGrace = 5 * kSecond;

// TempDir: a private directory for the CA file, removed with everything in it.
class TempDir {
 public:
  static Result<TempDir> Make() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/pqc-bench-link-XXXXXX", base ? base : "/tmp");
    if (mkdtemp(pattern.data()) == nullptr) {
      return MakeError(ErrorKind::kIo, fmt::format("mkdtemp: {}", std::strerror(errno)));
    }
    TempDir d;
    d.path_ = pattern;
    return d;
  }
  TempDir() = default;
  TempDir(TempDir&& o) noexcept : path_(std::exchange(o.path_, {})) {}
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// SignalMask: blocks signals for the calling thread's lifetime of this object.
class SignalMask {
 public:
  explicit SignalMask(const sigset_t& set) { pthread_sigmask(SIG_BLOCK, &set, &old_); }
  ~SignalMask() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalMask(const SignalMask&) = delete;
  SignalMask& operator=(const SignalMask&) = delete;

 private:
  sigset_t old_;
};

std::optional<std::string> FlagValue(const std::vector<std::string>& args,
                                     const std::string& flag) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == flag && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind(flag + "=", 0) == 0) return args[i].substr(flag.size() + 1);
  }
  return std::nullopt;
}

// WaitForListening: reads serve's stdout until its "listening on" line; copies everything to
// log. Fails if serve exits first or takes longer than the timeout.
Status WaitForListening(int fd, ChildProcess& server, std::FILE* log) {
  const Nanos deadline = MonotonicNow() + kServerStartTimeout;
  std::string seen;
  char buf[4096];
  while (MonotonicNow() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0) {
        seen.append(buf, static_cast<size_t>(n));
        if (log) fmt::print(log, "{}", std::string_view(buf, static_cast<size_t>(n)));
        if (seen.find("listening on") != std::string::npos) return {};
        continue;
      }
    }
    if (server.Exited()) {
      return MakeError(ErrorKind::kConfig,
                       fmt::format("the server in the server namespace exited before listening "
                                   "(exit {}); its output is above",
                                   server.exit_info()->ShellCode()));
    }
  }
  return MakeError(ErrorKind::kSystem, "the server did not print 'listening on' within 60 s");
}

void Drain(int fd, std::FILE* log) {
  char buf[4096];
  for (int i = 0; i < 64; ++i) {  // bounded: serve's summary is a few lines
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) return;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return;
    if (log) fmt::print(log, "{}", std::string_view(buf, static_cast<size_t>(n)));
  }
}

}  // namespace

Result<LinkRunResult> RunOverLink(const LinkRunOptions& options, std::FILE* log) {
  if (options.command.empty()) {
    return MakeError(ErrorKind::kUsage, "no command to run: pqc-bench link [flags] -- CMD ...");
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGCHLD);
  SignalMask mask(signals);  // before the mover's threads exist, so they inherit it

  auto link = Link::Create(options.profile, options.mover_threads);
  if (!link) return link.error();
  const std::string target = fmt::format("{}:{}", kServerIp, options.port);
  // The namespaces' paths let CMD start programs of its own on either side (`nsenter
  // --net=$PQC_SERVER_NETNS …`), e.g. a plain TCP sender to measure the link without TLS.
  std::vector<std::string> env = {"PQC_TARGET=" + target, std::string("PQC_SERVER_IP=") + kServerIp,
                                  std::string("PQC_CLIENT_IP=") + kClientIp,
                                  "PQC_SERVER_NETNS=" + (*link)->server_netns_path(),
                                  "PQC_CLIENT_NETNS=" + (*link)->client_netns_path()};

  std::optional<TempDir> temp;
  std::optional<ChildProcess> server;
  ScopedFd server_out;
  if (options.start_server) {
    std::vector<std::string> argv = {options.server_exe, "serve", "--listen", target};
    std::optional<std::string> ca = FlagValue(options.server_args, "--write-ca");
    if (!ca && !FlagValue(options.server_args, "--cert-file")) {
      auto dir = TempDir::Make();
      if (!dir) return dir.error();
      temp.emplace(std::move(*dir));
      ca = temp->path() + "/ca.pem";
      argv.insert(argv.end(), {"--write-ca", *ca});
    }
    argv.insert(argv.end(), options.server_args.begin(), options.server_args.end());
    if (ca) env.push_back("PQC_CA=" + *ca);
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
      return MakeError(ErrorKind::kSystem, fmt::format("pipe: {}", std::strerror(errno)));
    }
    server_out.reset(pipe_fds[0]);
    ScopedFd write_end(pipe_fds[1]);
    SpawnOptions so;
    so.argv = argv;
    so.netns_path = (*link)->server_netns_path();
    so.stdout_fd = write_end.get();
    so.death_signal = SIGTERM;
    auto spawned = ChildProcess::Spawn(so);
    if (!spawned) return spawned.error();
    server.emplace(std::move(*spawned));
    write_end.reset();
    if (Status s = WaitForListening(server_out.get(), *server, log); !s) return s.error();
  }
  if (log) {
    fmt::print(log, "link: {} between {} (client) and {} (server); running {}\n",
               options.profile.Describe(), kClientIp, kServerIp, options.command.front());
    std::fflush(log);
  }

  SpawnOptions co;
  co.argv = options.command;
  co.netns_path = (*link)->client_netns_path();
  co.env = env;
  co.death_signal = SIGTERM;
  auto command = ChildProcess::Spawn(co);
  if (!command) return command.error();

  LinkRunResult result;
  Nanos kill_at = 0;  // after a forwarded SIGINT/SIGTERM: when to SIGKILL
  for (;;) {
    if (command->Exited()) {
      result.exit_code = command->exit_info()->ShellCode();
      break;
    }
    if (kill_at != 0 && MonotonicNow() >= kill_at) {
      auto e = command->Terminate(0);  // the grace period is over: SIGKILL now
      result.exit_code = e ? e->ShellCode() : 128 + SIGKILL;
      break;
    }
    timespec tick{0, 100'000'000};  // bounded wait; SIGCHLD usually ends it sooner
    siginfo_t info{};
    int sig = sigtimedwait(&signals, &info, &tick);
    if (sig == SIGINT || sig == SIGTERM) {
      result.interrupted = true;
      kill(command->pid(), sig);
      if (kill_at == 0) kill_at = MonotonicNow() + kCommandGrace;
      if (log) fmt::print(log, "link: {} received, stopping the command\n", strsignal(sig));
    }
  }
  result.stats = (*link)->stats();
  if (server) {
    (void)server->Terminate(5 * kSecond);
    Drain(server_out.get(), log);
  }
  return result;
}

}  // namespace pqc::link
