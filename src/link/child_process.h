// child_process — a program started inside one of the link's namespaces (the target server,
// or the user's command), owned like any other resource: the destructor stops and reaps it,
// so no run leaves a process behind on an error path. Spawn prepares everything before
// fork() (argv, environment, the executable's path) because a multi-threaded parent's child
// may only make async-signal-safe calls before exec.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/error.h"

namespace pqc::link {

struct SpawnOptions {
  std::vector<std::string> argv;       // argv[0] is searched in PATH unless it has a '/'
  std::string netns_path;              // "" = stay in the parent's namespace
  std::vector<std::string> extra_env;  // "NAME=value", added to (or replacing in) environ
  int stdout_fd = -1;                  // >= 0: becomes the child's stdout
  int parent_death_signal = 0;         // sent to the child if this thread dies (0 = none)
};

class ChildProcess {
 public:
  // Spawn: returns once the child has exec'd, or the reason it could not (e.g. no such
  // program), with signals unblocked and default dispositions in the child.
  static Result<ChildProcess> Spawn(const SpawnOptions& options);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // ~ChildProcess: Terminate(SIGTERM, 2 s) if still running.
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0 && !status_; }
  // TryWait: the wait status once the child has exited (non-blocking).
  std::optional<int> TryWait();
  // Terminate: sends sig, waits up to `grace`, then SIGKILL; returns the wait status.
  int Terminate(int sig, Nanos grace);

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
  std::optional<int> status_;
};

// ExitCodeOf: a wait status as a shell would report it (exit code, or 128 + signal).
int ExitCodeOf(int wait_status);

}  // namespace pqc::link
