// child_process — a program the tool starts (nginx, `pqc-bench serve`, a command run across
// the emulated link) as a child it owns: it can never outlive the tool (PR_SET_PDEATHSIG, and
// the destructor kills and reaps it), its CPU is read from the kernel's own accounting of the
// child and of every worker it reaped (wait4), and it can be placed in another network
// namespace before it runs a single instruction of its own (setns between fork and exec).
// Spawn prepares everything before fork() (argv, environment, the executable's path) because
// a multi-threaded parent's child may only make async-signal-safe calls before exec.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "core/fd.h"

namespace pqc {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0]: a path, or a name searched in PATH (before fork)
  // Where output goes: output_path (stdout and stderr to this file, created or truncated;
  // stdin from /dev/null), else stdout_fd >= 0 (it becomes stdout; stdin and stderr are
  // inherited), else all three are inherited.
  std::string output_path;
  int stdout_fd = -1;
  // stdin_fd >= 0: it becomes stdin (a pipe the tool writes commands to: `count`'s children),
  // whichever of the above applies to the output.
  int stdin_fd = -1;
  std::string netns_path;        // empty = this namespace; else e.g. /run/netns/<name>
  std::vector<std::string> env;  // "NAME=value", added to (or replacing in) this environment
  int death_signal = SIGKILL;    // sent to the child when the spawning *thread* ends
  // process_group: the child leads a process group of its own, and every process left in it
  // is killed once the child is reaped — a server's workers (nginx's) do not outlive their
  // master when something else killed it. Its group also keeps the terminal's Ctrl-C, which
  // the tool handles, from reaching the server directly.
  bool process_group = false;
  // cpus: the CPUs the child (and every thread and process it makes) may run on; empty = this
  // process's own. Checked before fork (core/cpu_affinity.h), set before exec.
  std::vector<unsigned> cpus;
  std::string_view cpus_setting = "server_cpus";  // names the list in its error
};

// ChildExit: how the child ended and what it cost. CPU is the child's own plus that of its
// descendants it waited for (nginx's master reaps its workers), as wait4 reports it.
struct ChildExit {
  int status = 0;       // raw wait status
  bool killed = false;  // it needed SIGKILL (did not stop within the grace period)
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
  double wall_s = 0;  // spawn → reaped
  // unasked: it ended before the tool asked it to (Terminate): it crashed, exited or was
  // killed by someone else.
  bool unasked = false;
  std::string Describe() const;  // "exit status 3", "killed by signal 9"
  int ShellCode() const;         // as a shell reports it: the exit code, or 128 + signal
};

class ChildProcess {
 public:
  // Spawn: fork + (setns) + exec. Fails with the reason if the program, the output file or
  // the namespace cannot be found or opened, or if exec fails: the child reports its errno
  // through a close-on-exec pipe, so this is known before returning. Signals are unblocked
  // and back to their default dispositions in the child.
  static Result<ChildProcess> Spawn(const SpawnOptions& options);

  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // ~ChildProcess: SIGKILL and reap if still owned; never leaves a zombie.
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  bool owned() const { return pid_ > 0; }
  // exit_fd: a descriptor (a pidfd) that becomes readable once the child has ended, for a
  // poll beside other work; -1 when there is no child. Reading it is not reaping: Exited().
  int exit_fd() const { return pidfd_.get(); }

  // Exited: the child has ended (reaps it and keeps its ChildExit); false while it runs.
  bool Exited();
  // WaitExit: waits up to `timeout` for the child to end by itself (a client run to completion);
  // an error if it is still running then (it keeps running; Terminate or the destructor ends it).
  Result<ChildExit> WaitExit(Nanos timeout);
  // Terminate: SIGTERM, wait up to `grace`, then SIGKILL; reaps and returns the exit.
  // Called again (or after Exited() was true), returns the same exit.
  Result<ChildExit> Terminate(Nanos grace);
  // exit_info: set once the child has been reaped.
  const std::optional<ChildExit>& exit_info() const { return exit_; }

 private:
  bool Reap(int options);  // wait4; true once reaped
  void Kill();

  pid_t pid_ = -1;
  ScopedFd pidfd_;
  bool group_ = false;           // the child leads its own process group
  bool stop_requested_ = false;  // Terminate has begun
  Nanos started_ = 0;
  std::optional<ChildExit> exit_;
};

}  // namespace pqc
