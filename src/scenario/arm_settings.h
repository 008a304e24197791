// ArmSettings — everything one arm of a study fixes: what the client offers and must
// negotiate, what the server is configured with, and the load shape. A scenario file sets
// them in layers (built-in defaults, then its [tls]/[load]/[target] sections, then each
// matrix factor's value), so one flat struct with one table of keys (kSettingKeys) keeps
// the file syntax, validation, `run --set` and the stored copy of an arm in step.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "client/load_options.h"
#include "core/clock.h"
#include "core/error.h"

namespace pqc::scenario {

struct ArmSettings {
  // TLS: `group` is what every connection must negotiate (a failed check invalidates the
  // trial). The client offers client_groups (default: just `group`) with key shares for
  // key_shares (default: the first offered group); the server prefers server_groups.
  std::string group = "X25519";
  std::string client_groups;
  std::string key_shares;
  std::string server_groups;  // "" = the target's default preference
  std::string chain = "ecdsa-p256";
  bool tickets = true;
  bool session_cache = true;
  // The server a trial runs against: "embedded" | "nginx" | "external". A setting (not only
  // the file's [target] kind) so that a matrix can compare servers arm by arm
  // (target = ["embedded", "nginx"]) and `run --set target=nginx` can retarget any scenario.
  std::string target = "embedded";
  // An external target (a server the tool does not run): its address (an IP literal or
  // localhost, HOST:PORT), the name sent as SNI and Host and verified in its certificate
  // (default: the address's host), and the CA file that verifies it (default: the system's
  // trust store). Ignored by the targets the tool runs, which serve the run's own chain.
  std::string address;
  std::string server_name;
  std::string ca;

  // Load shape of one trial.
  std::string mode = "fresh";  // fresh | reuse | resume | a mix such as "resume:80,fresh:20"
  std::string payload = "OK";  // "OK" requests / (3 bytes); else a size for /payload/<size>
  double rate = 100;           // new connections per second
  uint32_t concurrency = 0;    // > 0: rate = concurrency / (requests × request_interval)
  uint32_t closed_loop = 0;    // > 0: that many connections always in flight, rate unused
  std::string arrivals = "uniform";
  bool busy_poll = false;  // client threads poll instead of sleeping (LoadOptions::busy_poll)
  Nanos duration = 10'000'000'000;
  Nanos warmup = 2'000'000'000;
  uint32_t requests = 1;
  Nanos request_interval = 0;
  unsigned client_threads = 1;
  unsigned server_threads = 1;
  Nanos timeout = 10'000'000'000;
  double max_error_rate = 0.01;
  // Saturation check of the load generator: lag p99 limit (a trial over it is invalid). 1 ms
  // by default; a shared or small machine may need more, which the results then state.
  Nanos max_lag_p99 = 1'000'000;
  std::string network = "loopback";  // a profile name: "loopback" or one of [networks.*]
};

// SettingKey: one key a scenario may set, with its help text; Apply validates the value
// and returns an error message without location (the caller knows the file position).
struct SettingKey {
  std::string_view section;  // the scenario section that sets it: "tls", "load" or "target"
  std::string_view name;
  std::string_view help;
  Status (*apply)(const toml::node& value, ArmSettings& settings);
};
std::span<const SettingKey> SettingKeys();
const SettingKey* FindSettingKey(std::string_view name);
// SettingKeyNames: "group, client_groups, …" for "valid keys are" messages; only those of
// `section` unless it is empty.
std::string SettingKeyNames(std::string_view section = {});

// ToolRunsServer: whether the tool starts and configures the arm's server (embedded, nginx).
// An external server is as its operator configured it: the server-side keys below do not
// apply to it.
bool ToolRunsServer(const ArmSettings& s);
// ServerSideKeys: the setting keys that configure the server, not the client.
std::span<const std::string_view> ServerSideKeys();
// kAsConfigured: what the stored copy of an external arm says for a server-side key.
inline constexpr std::string_view kAsConfigured = "as the server is configured";

// ModeMix: the mode text as load's weighted mix (one entry unless a mix).
Result<std::vector<MixWeight>> ModeMix(const std::string& mode);

// EffectiveRate: connections per second after `concurrency` (see ArmSettings).
double EffectiveRate(const ArmSettings& s);
// PayloadBytes: 3 for "OK", else the parsed size.
uint64_t PayloadBytes(const ArmSettings& s);
// RequestPath: "/" or "/payload/<size>".
std::string RequestPath(const ArmSettings& s);

// Validate: the checks that need the whole arm (known group and chain names, a parsable
// mode, a concurrency that fits the keep-alive settings). Names the arm in the message.
Status Validate(const ArmSettings& s, std::string_view arm_label);

nlohmann::json ToJson(const ArmSettings& s);

}  // namespace pqc::scenario
