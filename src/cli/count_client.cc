// count_client — the client process of `pqc-bench count`, run under callgrind: the arm's
// connections one after another (a closed loop of one, on this thread), the warm-up first,
// then the measured window between two connections: it tells count it is warm, waits for
// `go` on stdin (count has zeroed the server meanwhile), zeroes its own counts, and dumps them
// once the last measured connection has closed. Every measured connection must have
// negotiated the arm's group and resumed as its mode says, or the count is refused.
#include <fmt/core.h>

#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "cli/count_run.h"
#include "client/worker.h"
#include "core/instruction_window.h"
#include "net/address.h"
#include "scenario/arm_options.h"

namespace pqc::cli {
namespace {

constexpr Nanos kCountBound = 3600 * kSecond;  // the schedule's own end, never reached

void Say(const std::string& line) {
  fmt::print("{}\n", line);
  std::fflush(stdout);
}

// CheckWindow: the measured connections did what the arm asks, every one of them.
Status CheckWindow(const std::vector<ConnectionRecord>& records, const scenario::ArmSettings& s,
                   uint32_t warmup, uint32_t measured) {
  if (records.size() != static_cast<size_t>(warmup) + measured) {
    return MakeError(ErrorKind::kSystem, fmt::format("{} connections made, {} expected",
                                                     records.size(), warmup + measured));
  }
  const bool resume = s.mode.front().mode != ConnMode::kFresh;
  for (size_t i = warmup; i < records.size(); ++i) {
    const ConnectionRecord& r = records[i];
    if (!r.ok()) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("measured connection {} failed: {} {}", i - warmup + 1,
                                   ErrorClassName(r.error), r.error_detail));
    }
    if (r.group != s.group) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("measured connection {} negotiated {}, not the arm's {}",
                                   i - warmup + 1, r.group, s.group));
    }
    if (r.resumed != resume) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("measured connection {} was {}resumed (mode {})", i - warmup + 1,
                                   r.resumed ? "" : "not ", ConnModeName(s.mode.front().mode)));
    }
  }
  return {};
}

}  // namespace

int CountClientChild(const scenario::ArmSettings& s, const CountFlags& f) {
  auto fail = [](const Error& e) { return ReportError("count", e); };
  auto endpoint = ParseEndpoint(f.client_of);
  if (!endpoint) return fail(endpoint.error());
  auto anchors = ReadCountAnchors(f.ca);
  if (!anchors) return fail(anchors.error());
  LoadOptions o = scenario::MakeLoadOptions(s, endpoint->socket, 1);
  for (const X509Ptr& c : *anchors) o.tls.trust_anchors.push_back(c.get());
  o.closed_loop = 1;
  o.threads = 1;
  o.cpus.clear();
  o.busy_poll = false;
  o.warmup = 0;
  o.duration = kCountBound;
  const uint64_t warm = f.warmup, end = static_cast<uint64_t>(f.warmup) + f.handshakes;
  std::string refused;
  o.gate = [&](uint64_t started) {
    if (started == warm) {
      Say("count warm");
      std::string line;
      if (!std::getline(std::cin, line) || line != "go") {
        refused = fmt::format("expected 'go' from count on stdin, read '{}'", line);
        return false;
      }
      ZeroInstructionCounts();
    }
    if (started == end) {
      DumpInstructionCounts("window");
      return false;
    }
    return true;
  };
  auto worker = Worker::Create(o, 0, 1);
  if (!worker) return fail(worker.error());
  (*worker)->Run(MonotonicNow());
  if (!refused.empty()) return fail(MakeError(ErrorKind::kSystem, refused));
  if (Status st = CheckWindow((*worker)->records(), s, f.warmup, f.handshakes); !st) {
    Say(fmt::format("count invalid: {}", st.error().message));
    return kExitInvalid;
  }
  Say(fmt::format("count done {}", f.handshakes));
  return kExitOk;
}

}  // namespace pqc::cli
