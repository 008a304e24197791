// scenario — a study as written in a TOML file: the target, the base settings of every arm,
// the matrix of factors whose product is the set of arms, the network profiles and the
// number of trials. Parsing checks everything it can before a single connection is made, and
// every error names the file, line and column and what would be valid, because a typo found
// after an hour of measuring costs that hour.
//
// The file's shape (scenarios/*.toml are the examples):
//   title = "…"            description = "…"
//   [target]   kind = "embedded" | "nginx" | "haproxy" | "external" (the `target` setting, so also
//   a
//              matrix factor: target = ["embedded", "nginx"]), address = "host:port"
//              (external; also server_name, ca), server_threads, tickets, session_cache
//   [tls]      group, client_groups, key_shares, server_groups, chain
//   [load]     mode, payload, rate, concurrency, arrivals, duration, warmup, requests,
//              request_interval, client_threads, timeout, max_error_rate, network
//   [trials]   count, seed, adjacent (the factor whose arms run next to each other: plan.h)
//   [full]     duration, warmup, trials — the original study's scale, used with --full
//   [matrix]   FACTOR = [value, …] — a factor is a setting key (group = ["X25519", …]) or any
//              name whose values are tables: { value = "label", key = value, … } overriding
//              settings for that value, e.g. mode = ["fresh", { value = "reuse", requests = 10 }]
//   [stop]     p50, p95, p99, mean, phases, factors, time, blocks, min_blocks, confidence — a
//              study that stops itself once its questions are answered (stop_spec.h)
//   [builds.NAME]    pqc_bench, nginx, haproxy, serve_args — the binaries an arm whose `build`
//              setting names it is measured with (builds.h); "this" is the running binary
//   [networks.NAME]  rtt, jitter, loss, burst_loss, rate, queue, reorder — an emulated link,
//              or sites = ["NAME", …] — clients at several of those links at once (one trial
//              loads the target from every site, each with an equal share of the arm's load)
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "link/link_profile.h"
#include "scenario/arm_settings.h"
#include "scenario/builds.h"
#include "scenario/stop_spec.h"

namespace pqc::scenario {

// FactorValue: one level of a factor, with the settings it overrides (validated on parse).
struct FactorValue {
  std::string label;
  std::shared_ptr<const toml::table> overrides;  // setting key → value
  std::string location;                          // "file:line:col", for later messages
};

struct Factor {
  std::string name;
  std::vector<FactorValue> values;
};

// NetworkSite: one client site of a network: the [networks.*] profile it takes its wire from.
struct NetworkSite {
  std::string name;
  double rtt_ms = 0;
  link::LinkProfile link;
};

// NetworkProfile: "loopback" (no emulation), an emulated link's parameters as written (the
// link emulator parses and checks them once more when it starts), or several sites, each one
// of the file's emulated profiles, loading one server at once.
struct NetworkProfile {
  std::string name;
  std::map<std::string, std::string> params;  // rtt, jitter, loss, burst_loss, rate, queue, reorder
  double rtt_ms = 0;               // NaN for a network of several sites (each has its own)
  link::LinkProfile link;          // parsed (emulated profiles only; site 0's for several sites)
  std::vector<NetworkSite> sites;  // empty: one site, this profile
  bool emulated() const { return name != "loopback"; }
  bool multi_site() const { return !sites.empty(); }
  // LinkSites: the sites the link emulator builds for it (one for a plain profile).
  std::vector<link::LinkSite> LinkSites() const;
};

struct Scenario {
  std::string name;  // file stem ("01-fresh-handshake")
  std::string file;  // as given
  std::string text;  // the whole file, stored with the results
  std::string title;
  std::string description;
  // The target kinds the arms use, in the order the file names them (more than one when a
  // matrix varies it); each arm's own is ArmSettings::target. The run's facts store them as
  // text (TargetKindsText).
  std::vector<TargetKind> targets = {TargetKind::kEmbedded};
  // The keys `run --set` gave (applied to `base`): explicit choices, which an arm whose server
  // the tool does not run must refuse rather than ignore.
  std::vector<std::string> set_keys;
  uint32_t trials = 2;
  uint64_t seed = 1;
  // adjacent: [trials] adjacent = "FACTOR", a factor of the matrix whose arms run next to each
  // other in every block (plan.h's AdjacentFactor); empty: that function's default.
  std::string adjacent;
  bool full = false;
  ArmSettings base;
  std::vector<Factor> factors;                     // file order
  std::map<std::string, NetworkProfile> networks;  // "loopback" included
  Builds builds;                                   // [builds.NAME]; "this" is not among them
  // stop: the study stops itself (stop_spec.h): its [stop] section, or DefaultStop with
  // `run --stop`; the plan then has stop->rule.max_blocks blocks, `trials` is that count.
  std::optional<StopSpec> stop;
};

struct ParseOptions {
  bool full = false;                   // apply [full]
  std::vector<std::string> overrides;  // "key=value" (run --set), applied to the base settings
  uint32_t trials = 0;                 // > 0: replaces the file's trial count
  bool stop = false;                   // run --stop: DefaultStop unless the file has [stop]
  // "factor=value[,value…]" (run --only): only the arms whose factor has one of these values.
  std::vector<std::string> only;
  // "NAME=PATH" (run --build): another pqc-bench binary as a [builds.NAME], and the matrix
  // gains the factor build = [NAME, …] in this order (the first is the baseline).
  std::vector<std::string> builds;
};

// ParseScenarioText: `file` is only used in messages and for the name.
Result<Scenario> ParseScenarioText(const std::string& text, const std::string& file,
                                   const ParseOptions& options);
Result<Scenario> ParseScenarioFile(const std::string& path, const ParseOptions& options);

}  // namespace pqc::scenario
