#include "scenario/preflight.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "client/fd_limit.h"
#include "client/handshake_check.h"
#include "scenario/arm_options.h"
#include "target/readiness.h"

namespace pqc::scenario {

Status Preflight(const Scenario& scenario, const Plan& plan) {
  for (const Arm& arm : plan.arms) {
    // The target address and anchor do not change the number of connections.
    LoadOptions options = MakeLoadOptions(arm.settings, SocketAddress{}, 0);
    if (Status st = EnsureFileLimit(options, fmt::format("{}: arm '{}'", scenario.file, arm.label));
        !st) {
      return st;
    }
  }
  // Providers: each distinct set loads (the FIPS module passes its self-test) before a trial.
  std::set<std::string> loaded;
  for (const Arm& arm : plan.arms) {
    const ProviderSpec spec = ArmProviders(arm.settings);
    if (spec.empty() || !loaded.insert(spec.Label() + "\n" + spec.path).second) continue;
    auto lc = LibraryContext::Load(spec, /*own=*/true);
    if (!lc) {
      return MakeError(lc.error().kind, fmt::format("{}: arm '{}': {}", scenario.file, arm.label,
                                                    lc.error().message));
    }
  }
  // External servers: each distinct one must accept a connection, and one handshake with the
  // arm's client settings must verify (its CA or the system's trust store, its name).
  std::set<std::string> checked;
  for (const Arm& arm : plan.arms) {
    const ArmSettings& s = arm.settings;
    if (ToolRunsServer(s)) continue;
    const SocketAddress* addr = &s.address.socket;
    LoadOptions options = MakeLoadOptions(s, *addr, 0);
    ApplyArmTrust(s, {}, options);
    const std::string key = fmt::format("{} {} {} {}", s.address.text, options.server_name, s.ca,
                                        fmt::join(options.tls.groups, ":"));
    if (!checked.insert(key).second) continue;
    Status st = target::WaitUntilAccepting(*addr, "", MonotonicNow() + kExternalProbeTimeout,
                                           [] { return Status(); });
    if (!st) {
      return MakeError(
          ErrorKind::kSystem,
          fmt::format("{}: arm '{}': the external server {} does not accept connections "
                      "(waited {} s): start it first, or correct the address",
                      scenario.file, arm.label, addr->ToString(),
                      kExternalProbeTimeout / 1'000'000'000));
    }
    if (Status hs = HandshakeOnce(options, kExternalProbeTimeout); !hs) {
      const bool verification = hs.error().message.find("failed verification") != std::string::npos;
      // A certificate the trust store does not vouch for is the user's input to fix (exit 2).
      return MakeError(
          verification ? ErrorKind::kConfig : hs.error().kind,
          fmt::format("{}: arm '{}': {}{}", scenario.file, arm.label, hs.error().message,
                      verification ? " (give the CA that signed it with --ca FILE or "
                                     "ca = \"FILE\" in [target], and the name its "
                                     "certificate carries with --server-name NAME)"
                                   : ""));
    }
  }
  return {};
}

}  // namespace pqc::scenario
