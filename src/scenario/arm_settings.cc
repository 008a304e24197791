#include "scenario/arm_settings.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "client/mode_spec.h"
#include "core/units.h"
#include "net/address.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"

namespace pqc::scenario {
namespace {

constexpr Nanos kMaxDuration = 24LL * 3600 * 1'000'000'000;

Error Bad(std::string message) {
  return MakeError(ErrorKind::kConfig, std::move(message));
}

std::string TypeName(const toml::node& v) {
  switch (v.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    default:
      return "a date or time";
  }
}

Result<std::string> Text(const toml::node& v, std::string_view what) {
  if (auto s = v.value_exact<std::string>()) return *s;
  return Bad(fmt::format("must be a string ({}), not {}", what, TypeName(v)));
}

Result<bool> Bool(const toml::node& v) {
  if (auto b = v.value_exact<bool>()) return *b;
  return Bad(fmt::format("must be true or false, not {}", TypeName(v)));
}

// Number: integers and floats both; strings go through `parse` (e.g. "300/s").
Result<double> Number(const toml::node& v, Result<double> (*parse)(std::string_view)) {
  if (auto i = v.value_exact<int64_t>()) return static_cast<double>(*i);
  if (auto d = v.value_exact<double>()) return *d;
  if (auto s = v.value_exact<std::string>(); s && parse != nullptr) return parse(*s);
  return Bad(fmt::format("must be a number, not {}", TypeName(v)));
}

Result<uint32_t> Count(const toml::node& v, uint32_t min, uint32_t max) {
  auto i = v.value_exact<int64_t>();
  if (!i) return Bad(fmt::format("must be an integer, not {}", TypeName(v)));
  if (*i < min || *i > max) return Bad(fmt::format("must be from {} to {}, not {}", min, max, *i));
  return static_cast<uint32_t>(*i);
}

Result<Nanos> Duration(const toml::node& v, bool zero_ok) {
  auto s = Text(v, "a duration such as \"10s\" or \"250ms\"");
  if (!s) return s.error();
  auto d = ParseDuration(*s);
  if (!d) return d.error();
  if (*d < 0 || (*d == 0 && !zero_ok) || *d > kMaxDuration) {
    return Bad(fmt::format("'{}' must be {} and at most 24h", *s, zero_ok ? "≥ 0" : "> 0"));
  }
  return *d;
}

Status GroupName(const std::string& name) {
  auto g = FindGroup(name);
  if (!g) return Bad(g.error().message);
  return {};
}

Status GroupList(const std::string& list) {
  if (list.empty()) return {};
  auto g = ParseGroupList(list);
  if (!g) return Bad(g.error().message);
  return {};
}

// The setters: one per key. Each validates what it can see alone.
template <auto Member>
Status SetText(const toml::node& v, ArmSettings& s, Status (*check)(const std::string&)) {
  auto t = Text(v, "text");
  if (!t) return t.error();
  if (check != nullptr) {
    if (Status st = check(*t); !st) return st;
  }
  s.*Member = *t;
  return {};
}

Status CheckChain(const std::string& text) {
  auto c = ParseChainSpec(text);
  if (!c) return Bad(c.error().message);
  return {};
}

Status CheckMode(const std::string& text) {
  auto m = ModeMix(text);
  if (!m) return Bad(m.error().message);
  return {};
}

Status CheckPayload(const std::string& text) {
  if (text == "OK") return {};
  auto n = ParseSize(text);
  if (!n) return Bad(fmt::format("'{}': {} (or \"OK\" for the 3-byte /)", text, n.error().message));
  if (*n == 0 || *n > (1ULL << 30)) return Bad(fmt::format("'{}' must be from 1B to 1G", text));
  return {};
}

Status CheckArrivals(const std::string& text) {
  if (text == "uniform" || text == "poisson") return {};
  return Bad(fmt::format("'{}' is not an arrival process (valid: uniform, poisson)", text));
}

Status CheckTarget(const std::string& text) {
  if (text == "embedded" || text == "nginx" || text == "external") return {};
  return Bad(fmt::format("'{}' is not a target (valid: embedded, nginx, external)", text));
}

Status CheckAddress(const std::string& text) {
  auto a = ParseAddress(text);
  if (!a) return Bad(a.error().message);
  if (a->port() == 0) return Bad(fmt::format("'{}': the port must be 1-65535", text));
  return {};
}

Status CheckServerName(const std::string& text) {
  if (text.empty() || text.size() > 253 ||
      text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") !=
          std::string::npos) {
    return Bad(
        fmt::format("'{}' is not a DNS name (letters, digits, '.', '-'; e.g. example.com)", text));
  }
  return {};
}

Status CheckNetwork(const std::string& text) {
  if (text.empty()) return Bad("must name a network profile (\"loopback\" or one of [networks.*])");
  return {};  // existence is checked against the scenario's [networks] when the plan is made
}

Status SetRate(const toml::node& v, ArmSettings& s) {
  auto r = Number(v, &ParseRate);
  if (!r) return r.error();
  if (!(*r > 0) || *r > 1e6) return Bad(fmt::format("must be above 0 and at most 1000000/s"));
  s.rate = *r;
  return {};
}

Status SetErrorRate(const toml::node& v, ArmSettings& s) {
  auto r = v.is_string() ? Number(v, &ParsePercent) : Number(v, nullptr);
  if (!r) return r.error();
  if (!(*r >= 0) || *r > 1) return Bad("must be a fraction from 0 to 1, or a percentage \"1%\"");
  s.max_error_rate = *r;
  return {};
}

template <auto Member>
Status SetBool(const toml::node& v, ArmSettings& s) {
  auto b = Bool(v);
  if (!b) return b.error();
  s.*Member = *b;
  return {};
}

template <auto Member, uint32_t Min, uint32_t Max>
Status SetCount(const toml::node& v, ArmSettings& s) {
  auto c = Count(v, Min, Max);
  if (!c) return c.error();
  s.*Member = *c;
  return {};
}

template <auto Member, bool ZeroOk>
Status SetDuration(const toml::node& v, ArmSettings& s) {
  auto d = Duration(v, ZeroOk);
  if (!d) return d.error();
  s.*Member = *d;
  return {};
}

constexpr std::array kKeys = {
    SettingKey{"tls", "group", "group every connection must negotiate (e.g. X25519MLKEM768)",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::group>(v, s, &GroupName);
               }},
    SettingKey{"tls", "client_groups", "groups the client offers, ':'-separated (default: group)",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::client_groups>(v, s, &GroupList);
               }},
    SettingKey{"tls", "key_shares", "groups the client sends key shares for (default: the first)",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::key_shares>(v, s, &GroupList);
               }},
    SettingKey{"tls", "server_groups",
               "server preference, OpenSSL syntax ('/' between tuples; default: target's)",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::server_groups>(v, s, nullptr);
               }},
    SettingKey{"tls", "chain", "certificate chain, leaf first (e.g. ml-dsa-65/ml-dsa-87)",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::chain>(v, s, &CheckChain);
               }},
    SettingKey{"target", "target",
               "server of the arm: embedded | nginx | external (in [target], spelt kind)",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::target>(v, s, &CheckTarget);
               }},
    SettingKey{"target", "address",
               "HOST:PORT of an external target (an IP address or localhost; names are not "
               "resolved)",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::address>(v, s, &CheckAddress);
               }},
    SettingKey{"target", "server_name",
               "external target: SNI, Host header and the name its certificate must carry "
               "(default: the address's host)",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::server_name>(v, s, &CheckServerName);
               }},
    SettingKey{"target", "ca",
               "external target: PEM file of the CA(s) that verify its certificate (default: "
               "the system's trust store)",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::ca>(v, s, nullptr);
               }},
    SettingKey{"target", "tickets", "server issues session tickets (true/false)",
               &SetBool<&ArmSettings::tickets>},
    SettingKey{"target", "session_cache", "server-side session cache (true/false)",
               &SetBool<&ArmSettings::session_cache>},
    SettingKey{"load", "mode", "fresh | reuse | resume | a mix such as \"resume:80,fresh:20\"",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::mode>(v, s, &CheckMode);
               }},
    SettingKey{"load", "payload", "\"OK\" (GET /) or a response size such as \"10K\"",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::payload>(v, s, &CheckPayload);
               }},
    SettingKey{"load", "rate", "new connections per second (300 or \"300/s\")", &SetRate},
    SettingKey{"load", "concurrency",
               "open keep-alive connections to hold (sets rate from requests × request_interval)",
               &SetCount<&ArmSettings::concurrency, 1, 100000>},
    SettingKey{"load", "closed_loop",
               "connections kept in flight, each replaced when it ends (closed loop; rate unused)",
               &SetCount<&ArmSettings::closed_loop, 1, 100000>},
    SettingKey{"load", "arrivals", "uniform | poisson",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::arrivals>(v, s, &CheckArrivals);
               }},
    SettingKey{"load", "busy_poll",
               "client threads poll instead of sleeping: no wake-up in connect times or start "
               "lag, at the cost of a CPU per client thread (true/false)",
               &SetBool<&ArmSettings::busy_poll>},
    SettingKey{"load", "duration", "measured phase of a trial (\"20s\")",
               &SetDuration<&ArmSettings::duration, false>},
    SettingKey{"load", "warmup", "discarded phase before it (\"3s\"; collects tickets for resume)",
               &SetDuration<&ArmSettings::warmup, true>},
    SettingKey{"load", "requests", "requests per connection",
               &SetCount<&ArmSettings::requests, 1, 1000000>},
    SettingKey{"load", "request_interval",
               "think time between requests on a connection (\"100ms\")",
               &SetDuration<&ArmSettings::request_interval, true>},
    SettingKey{"load", "client_threads", "load-generator threads",
               &SetCount<&ArmSettings::client_threads, 1, 256>},
    SettingKey{"target", "server_threads", "server event loops / nginx workers",
               &SetCount<&ArmSettings::server_threads, 1, 256>},
    SettingKey{"load", "timeout", "per-connection no-progress timeout (\"10s\")",
               &SetDuration<&ArmSettings::timeout, false>},
    SettingKey{"load", "max_error_rate", "errors above this fraction invalidate a trial (\"1%\")",
               &SetErrorRate},
    SettingKey{"load", "max_lag_p99",
               "lag p99 (intended → actual start) above which a trial is invalid (\"1ms\")",
               &SetDuration<&ArmSettings::max_lag_p99, false>},
    SettingKey{"load", "network", "network profile: \"loopback\" or a [networks.NAME] of this file",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::network>(v, s, &CheckNetwork);
               }},
};

constexpr std::array<std::string_view, 5> kServerSideKeys = {"chain", "server_groups", "tickets",
                                                             "session_cache", "server_threads"};

}  // namespace

bool ToolRunsServer(const ArmSettings& s) {
  return s.target != "external";
}

std::span<const std::string_view> ServerSideKeys() {
  return kServerSideKeys;
}

Result<std::vector<MixWeight>> ModeMix(const std::string& mode) {
  if (mode.find(':') != std::string::npos) return ParseMix(mode, "mode");
  if (mode == "mix") {
    return Bad("mode \"mix\": give the weights instead, e.g. mode = \"resume:80,fresh:20\"");
  }
  auto m = ParseModes(mode, "");
  if (!m) {
    return Bad(
        fmt::format("unknown mode '{}' (valid: fresh, reuse, resume, or a mix such as "
                    "\"resume:80,fresh:20\")",
                    mode));
  }
  return m;
}

std::span<const SettingKey> SettingKeys() {
  return kKeys;
}

const SettingKey* FindSettingKey(std::string_view name) {
  for (const SettingKey& k : kKeys) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string SettingKeyNames(std::string_view section) {
  std::string out;
  for (const SettingKey& k : kKeys) {
    if (section.empty() || k.section == section) {
      out += fmt::format("{}{}", out.empty() ? "" : ", ", k.name);
    }
  }
  return out;
}

double EffectiveRate(const ArmSettings& s) {
  if (s.concurrency == 0 || s.request_interval <= 0) return s.rate;
  const double lifetime_s =
      static_cast<double>(s.requests) * static_cast<double>(s.request_interval) / 1e9;
  return static_cast<double>(s.concurrency) / lifetime_s;
}

uint64_t PayloadBytes(const ArmSettings& s) {
  if (s.payload == "OK") return 3;
  auto n = ParseSize(s.payload);
  return n ? *n : 0;
}

std::string RequestPath(const ArmSettings& s) {
  return s.payload == "OK" ? std::string("/") : "/payload/" + s.payload;
}

Status Validate(const ArmSettings& s, std::string_view arm_label) {
  auto fail = [&](const std::string& what) {
    return Bad(fmt::format("arm '{}': {}", arm_label, what));
  };
  if (Status st = GroupName(s.group); !st) return fail(st.error().message);
  if (!s.client_groups.empty()) {
    auto offered = ParseGroupList(s.client_groups);
    if (!offered) return fail(offered.error().message);
    bool found = false;
    for (const std::string& g : *offered) found = found || g == s.group;
    if (!found) {
      return fail(fmt::format("client_groups '{}' does not offer the arm's group {}",
                              s.client_groups, s.group));
    }
  }
  if (Status st = CheckChain(s.chain); !st) return fail(st.error().message);
  if (!ToolRunsServer(s)) {
    if (s.address.empty()) {
      return fail(
          "target external needs the server's address: address = \"HOST:PORT\" in [target], "
          "or run --target HOST:PORT");
    }
    if (s.network != "loopback") {
      return fail(fmt::format(
          "network '{}' is an emulated link between namespaces the tool makes, and an external "
          "server is outside them; run it on \"loopback\" (network = \"loopback\"), or emulate "
          "the link in front of your server with `pqc-bench link --no-server` (your server started "
          "in "
          "$PQC_SERVER_NETNS)",
          s.network));
    }
    if (!s.ca.empty()) {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(s.ca, ec)) {
        return fail(
            fmt::format("ca '{}' is not a readable file (give the PEM file of the CA "
                        "that signed the server's certificate)",
                        s.ca));
      }
    }
  }
  if (s.concurrency > 0) {
    if (s.request_interval <= 0 || s.mode != "reuse") {
      return fail(
          "concurrency needs mode = \"reuse\" with request_interval > 0 (each connection then "
          "lives requests × request_interval, and rate = concurrency / that lifetime)");
    }
  }
  if (s.closed_loop > 0 && s.concurrency > 0) {
    return fail("closed_loop and concurrency both fix how many connections are open; give one");
  }
  if (s.mode == "resume" && !s.tickets && !s.session_cache) {
    return fail("mode resume needs tickets or session_cache on the server");
  }
  const double conns = EffectiveRate(s) * static_cast<double>(s.duration + s.warmup) / 1e9;
  if (conns < 1) {
    return fail(fmt::format("rate {:.3g}/s over {} gives no connection; raise rate or duration",
                            EffectiveRate(s), FormatDuration(s.duration + s.warmup)));
  }
  return {};
}

nlohmann::json ToJson(const ArmSettings& s) {
  nlohmann::json j = {{"group", s.group},
                      {"client_groups", s.client_groups},
                      {"key_shares", s.key_shares},
                      {"server_groups", s.server_groups},
                      {"chain", s.chain},
                      {"tickets", s.tickets},
                      {"session_cache", s.session_cache},
                      {"target", s.target},
                      {"mode", s.mode},
                      {"payload", s.payload},
                      {"rate", EffectiveRate(s)},
                      {"concurrency", s.concurrency},
                      {"closed_loop", s.closed_loop},
                      {"arrivals", s.arrivals},
                      {"busy_poll", s.busy_poll},
                      {"duration", FormatDuration(s.duration)},
                      {"warmup", FormatDuration(s.warmup)},
                      {"requests", s.requests},
                      {"request_interval", FormatDuration(s.request_interval)},
                      {"client_threads", s.client_threads},
                      {"server_threads", s.server_threads},
                      {"timeout", FormatDuration(s.timeout)},
                      {"max_error_rate", s.max_error_rate},
                      {"max_lag_p99", FormatDuration(s.max_lag_p99)},
                      {"network", s.network}};
  if (!ToolRunsServer(s)) {
    // Not applied to a server the tool does not run: never reported as if it were.
    for (std::string_view k : kServerSideKeys) j[std::string(k)] = kAsConfigured;
    j["address"] = s.address;
    j["server_name"] = s.server_name;
    j["ca"] = s.ca.empty() ? std::string("system trust store") : s.ca;
  }
  return j;
}

}  // namespace pqc::scenario
