#include "scenario/preflight.h"

#include <fmt/format.h>

#include "client/fd_limit.h"
#include "scenario/arm_options.h"
#include "target/readiness.h"

namespace pqc::scenario {

Status Preflight(const Scenario& scenario, const Plan& plan) {
  for (const Arm& arm : plan.arms) {
    // The target address and anchor do not change the number of connections.
    auto options = MakeLoadOptions(arm.settings, SocketAddress{}, nullptr, 0);
    if (!options) return options.error();
    if (Status st =
            EnsureFileLimit(*options, fmt::format("{}: arm '{}'", scenario.file, arm.label));
        !st) {
      return st;
    }
  }
  if (scenario.target != "external") return {};
  auto addr = ParseAddress(scenario.external_address);
  if (!addr) return addr.error();
  Status st = target::WaitUntilAccepting(*addr, "", MonotonicNow() + kExternalProbeTimeout,
                                         [] { return Status(); });
  if (!st) {
    return MakeError(
        ErrorKind::kSystem,
        fmt::format("{}: [target] external address {} does not accept connections "
                    "(waited {} s): start the server first, or correct the address",
                    scenario.file, addr->ToString(), kExternalProbeTimeout / 1'000'000'000));
  }
  return {};
}

}  // namespace pqc::scenario
