#include "cli/serve_count.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>

#include "cli/unit_flags.h"
#include "core/instruction_window.h"

namespace pqc::cli {
namespace {

// A server that still holds a connection this long after the client finished is stuck; the
// window is then refused rather than opened or closed in the middle of a connection.
constexpr Nanos kIdleWait = 60 * kSecond;
constexpr auto kIdlePoll = std::chrono::milliseconds(1);

bool WaitIdle(const std::function<size_t()>& open_connections) {
  const Nanos until = MonotonicNow() + kIdleWait;
  while (open_connections() > 0) {
    if (MonotonicNow() > until) return false;
    std::this_thread::sleep_for(kIdlePoll);
  }
  return true;
}

void Answer(const std::string& line) {
  fmt::print("{}\n", line);
  std::fflush(stdout);
}

void Carry(std::string_view command, const std::function<size_t()>& open_connections) {
  if (command != "zero" && command != "dump") {
    Answer(fmt::format("count error: unknown command '{}' (valid: zero, dump)", command));
    return;
  }
  if (!WaitIdle(open_connections)) {
    Answer(fmt::format("count error: {} connections still open after {} s", open_connections(),
                       kIdleWait / kSecond));
    return;
  }
  if (command == "zero") {
    ZeroInstructionCounts();
    Answer("count zeroed");
  } else {
    DumpInstructionCounts("window");
    Answer("count dumped");
  }
}

}  // namespace

int WaitWithCountControl(StopSignals& signals, Nanos deadline,
                         const std::function<size_t()>& open_connections) {
  std::string pending;
  bool reading = true;
  while (true) {
    const int sig = signals.WaitUntil(deadline, reading ? STDIN_FILENO : -1);
    if (sig != StopSignals::kWatchReady) return sig;
    char buf[256];
    const ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      reading = false;  // count has gone: the signals and the deadline end the server
      continue;
    }
    pending.append(buf, static_cast<size_t>(n));
    // A peer that never sends a newline cannot make the server hold more than a line's worth.
    if (pending.size() > 1024) pending.erase(0, pending.size() - 1024);
    size_t end;
    while ((end = pending.find('\n')) != std::string::npos) {
      Carry(std::string_view(pending).substr(0, end), open_connections);
      pending.erase(0, end + 1);
    }
  }
}

}  // namespace pqc::cli
