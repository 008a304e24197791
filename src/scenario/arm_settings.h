// ArmSettings — everything one arm of a study fixes: what the client offers and must
// negotiate, what the server is configured with, and the load shape. A scenario file sets
// them in layers (built-in defaults, then its [tls]/[load]/[target] sections, then each
// matrix factor's value), so one flat struct with one table of keys (SettingKeys()) keeps
// the file syntax, validation, `run --set`, `load`'s flags and the stored copy of an arm in
// step: adding a knob is one row of that table plus the code that uses the value.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "core/protocol.h"
#include "records/load_options.h"
#include "target/target.h"
#include "tls/cert_chain.h"
#include "tls/providers.h"

namespace pqc::scenario {

// TargetKind: the server a trial runs against. A setting (not only the file's [target] kind)
// so that a matrix can compare servers arm by arm (target = ["embedded", "nginx"]) and
// `run --set target=nginx` can retarget any scenario.
using target::ParseTargetKind;
using target::TargetKind;
using target::TargetKindName;
using target::TargetKindsText;

// DefaultChain: ecdsa-p256, the classical baseline.
ChainSpec DefaultChain();

// ArmSettings holds typed values, each parsed once where it was written (scenario file,
// `run --set`, a `load` flag); the text forms exist only in the stored copy (ToJson).
struct ArmSettings {
  // TLS: `group` is what every connection must negotiate (a failed check invalidates the
  // trial). The client offers client_groups (empty: just `group`) with key shares for
  // key_shares (empty: the first offered group); the server prefers server_groups.
  // X25519MLKEM768 by default: what OpenSSL 3.5 offers first and the subject of the tool.
  std::string group = "X25519MLKEM768";
  std::vector<std::string> client_groups;
  std::vector<std::string> key_shares;
  std::string server_groups;  // OpenSSL syntax ('/' between tuples); "" = the default preference
  // chain: the chain this arm's connections must be served (its leaf's scheme is checked on
  // every full handshake). server_chains: every chain the server holds, one per leaf key type
  // (empty: just `chain`); OpenSSL picks by the client's `sigalgs` (the signature_algorithms
  // it offers, OpenSSL names, ':'-separated; empty: OpenSSL's default list).
  ChainSpec chain = DefaultChain();
  std::vector<ChainSpec> server_chains;
  std::string sigalgs;
  // OpenSSL providers of the client's and the tool-run server's library context, in load order
  // (empty: OpenSSL's default provider), and the property query of their fetches ("fips=yes").
  std::vector<std::string> providers;
  std::string property_query;
  std::string provider_path;  // where their modules are ("" = the build's modules directory)
  bool tickets = true;
  bool session_cache = true;
  bool early_data = false;  // the server's tickets allow 0-RTT early data (mode early)
  // quic_retry: an h3 arm's server validates every client's address with a Retry first (RFC
  // 9000 §8.1.2): what an exposed server does against spoofed sources, one more round trip.
  bool quic_retry = false;
  // The observatory on the embedded server: every connection's ClientHello and outcome in the
  // trial directory's clients.sqlite (`report --clients`). Off by default: it costs the server.
  bool record_clients = false;
  // expect_early_rejected: an `early` arm measuring a server that refuses early data.
  bool expect_early_rejected = false;
  TargetKind target = TargetKind::kEmbedded;
  // build: the binaries that measure the arm: "this" (the running pqc-bench and the run's
  // nginx and HAProxy) or a [builds.NAME] of the scenario (scenario/builds.h).
  std::string build = "this";
  // An external target (a server the tool does not run): its address (an IP literal or
  // localhost, HOST:PORT, parsed when set), the name sent as SNI and Host and verified in its
  // certificate (default: the address's host), and the CA file that verifies it (default: the
  // system's trust store). Ignored by the targets the tool runs, which serve the run's chain.
  Endpoint address;
  std::string server_name;
  std::string ca;

  // Load shape of one trial. protocol: HTTP/1.1 over TCP or HTTP/3 over QUIC; the server the
  // tool runs then listens on both (one port number, TCP and UDP).
  Protocol protocol = Protocol::kH1;
  std::vector<MixWeight> mode = {{ConnMode::kFresh, 1.0}};  // one entry, or a weighted mix
  std::optional<uint64_t> payload;  // response bytes of /payload/<size>; none: GET / ("OK")
  double rate = 100;                // new connections per second
  uint32_t concurrency = 0;         // > 0: rate = concurrency / (requests × request_interval)
  uint32_t closed_loop = 0;         // > 0: that many connections always in flight, rate unused
  Arrivals arrivals = Arrivals::kUniform;
  bool busy_poll = false;  // client threads poll instead of sleeping (LoadOptions::busy_poll)
  Nanos duration = 10'000'000'000;
  Nanos warmup = 2'000'000'000;
  uint32_t requests = 1;
  Nanos request_interval = 0;
  uint32_t streams = 1;  // HTTP/2 requests in flight at once on a connection (ValidateStreams)
  unsigned client_threads = 1;
  unsigned server_threads = 1;
  // Placement: the CPUs the load threads and the server the tool runs may use (empty: where
  // the scheduler puts them). On a small machine where they land is a source of the
  // between-trial variance (docs/methodology.md, "Why trials disagree").
  std::vector<unsigned> client_cpus;
  std::vector<unsigned> server_cpus;
  Nanos timeout = 10'000'000'000;
  double max_error_rate = 0.01;
  // Saturation check of the load generator: lag p99 limit (a trial over it is invalid; 20 ms
  // by default, as LoadOptions says why).
  Nanos max_lag_p99 = 20'000'000;
  // The emulated link's own accuracy: its packets' release error p99 above this invalidates
  // a trial (a late link adds delay that is not in its profile; the mover's error is tens of
  // µs, docs/link.md).
  Nanos max_link_late_p99 = 1'000'000;
  std::string network = "loopback";  // a profile name: "loopback" or one of [networks.*]
};

// Who a setting configures: the client, the server the tool runs, or which target it is.
enum class KeySide : uint8_t { kClient, kServer, kTarget };

// SettingKey: one key a scenario may set, with its help text; Apply validates the value
// and returns an error message without location (the caller knows the file position).
// The same row binds `load`'s flag (load_flag, e.g. "--groups,--client-groups"; empty: not a
// load flag) and writes the stored copy of an arm (echo), so the file syntax, `run --set`,
// `load --help`, validation and the stored copy cannot disagree.
struct SettingKey {
  std::string_view section;  // the scenario section that sets it: "tls", "load" or "target"
  std::string_view name;
  std::string_view help;
  KeySide side;
  bool boolean;  // true/false, a switch as a flag
  std::string_view load_flag;
  Status (*apply)(const toml::node& value, ArmSettings& settings);
  nlohmann::json (*echo)(const ArmSettings& settings);
};
std::span<const SettingKey> SettingKeys();
const SettingKey* FindSettingKey(std::string_view name);
// SettingKeyNames: "group, client_groups, …" for "valid keys are" messages; only those of
// `section` unless it is empty.
std::string SettingKeyNames(std::string_view section = {});

// ToolRunsServer: whether the tool starts and configures the arm's server (embedded, nginx,
// HAProxy). An external server is as its operator configured it: the server-side keys below do not
// apply to it.
bool ToolRunsServer(const ArmSettings& s);
// ApplyText: a value given as text (`run --set KEY=VALUE`, a `load` flag): read as TOML when
// it parses as TOML (numbers, booleans, quoted strings), as a plain string otherwise.
Status ApplyText(const SettingKey& key, std::string_view text, ArmSettings& settings);
// ApplySetOverride: "key=value" from the command line (`run --set`, `count --set`), the value
// read as ApplyText reads it; the error names the key or the valid keys.
Status ApplySetOverride(const std::string& kv, ArmSettings& base);

// ServerSideKeys: the setting keys that configure the server, not the client.
std::vector<std::string_view> ServerSideKeys();
// kAsConfigured: what the stored copy of an external arm says for a server-side key.
inline constexpr std::string_view kAsConfigured = "as the server is configured";

// ModeMix: a mode's text ("fresh", "resume:80,fresh:20") as load's weighted mix.
Result<std::vector<MixWeight>> ModeMix(const std::string& mode);
// ModeText: the mix as the text ModeMix reads back ("fresh", "resume:80,fresh:20").
std::string ModeText(const std::vector<MixWeight>& mode);
// SingleMode: whether the arm runs only `mode` (not a mix).
bool SingleMode(const ArmSettings& s, ConnMode mode);
// ArmProviders: the arm's providers as the TLS layer loads them.
ProviderSpec ArmProviders(const ArmSettings& s);
// ServedChains: the chains the server holds (server_chains, or just chain).
std::vector<ChainSpec> ServedChains(const ArmSettings& s);
// OfferedGroups, KeyShareGroups: what the client offers and sends key shares for, after the
// defaults (client_groups: {group}; key_shares: the first offered).
std::vector<std::string> OfferedGroups(const ArmSettings& s);
std::vector<std::string> KeyShareGroups(const ArmSettings& s);

// EffectiveRate: connections per second after `concurrency` (see ArmSettings).
double EffectiveRate(const ArmSettings& s);
// PayloadBytes: 3 for "OK", else the payload size.
uint64_t PayloadBytes(const ArmSettings& s);
// RequestPath: "/" or "/payload/<size>".
std::string RequestPath(const ArmSettings& s);

// Validate: the checks that need the whole arm (known group and chain names, a parsable
// mode, a concurrency that fits the keep-alive settings). Names the arm in the message.
Status Validate(const ArmSettings& s, std::string_view arm_label);

nlohmann::json ToJson(const ArmSettings& s);

}  // namespace pqc::scenario
