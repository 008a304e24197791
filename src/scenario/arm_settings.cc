// arm_settings.cc — the setting keys' table (kKeys: one row per key, its parser and echo) and
// the TOML value readers its rows are made of. Over 400 lines on purpose: the table is the one
// place a key is defined (docs/development.md, "The arm model: adding a knob"), and cutting it in
// two would make two. What follows from the settings once read is arm_rules.cc's.
#include "scenario/arm_settings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "client/mode_spec.h"
#include "core/cpu_affinity.h"
#include "core/protocol.h"
#include "core/split.h"
#include "core/units.h"
#include "net/address.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"
#include "tls/context.h"
#include "tls/providers.h"

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

// The setters: one per kind of value. Each parses and validates what it can see alone.
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

// SetParsed: a string parsed into the member's type by `parse`.
template <auto Member, typename T>
Status SetParsed(const toml::node& v, ArmSettings& s, Result<T> (*parse)(const std::string&)) {
  auto t = Text(v, "text");
  if (!t) return t.error();
  auto parsed = parse(*t);
  if (!parsed) return Bad(parsed.error().message);
  s.*Member = std::move(*parsed);
  return {};
}

Result<std::vector<std::string>> GroupList(const std::string& list) {
  if (list.empty()) return std::vector<std::string>{};
  return ParseGroupList(list);
}

Result<ChainSpec> Chain(const std::string& text) {
  return ParseChainSpec(text);
}

// TextList: an array of strings (["ecdsa-p256", "ml-dsa-65"]), or one string of them
// ','-separated (a `--set` or flag value).
Result<std::vector<std::string>> TextList(const toml::node& v, std::string_view item,
                                          std::string_view list) {
  std::vector<std::string> texts;
  if (const toml::array* a = v.as_array()) {
    for (const toml::node& e : *a) {
      auto t = Text(e, item);
      if (!t) return t.error();
      texts.push_back(*t);
    }
    return texts;
  }
  auto t = Text(v, list);
  if (!t) return t.error();
  for (std::string_view part : Split(*t, ",")) texts.emplace_back(part);
  return texts;
}

Status SetChains(const toml::node& v, ArmSettings& s) {
  auto texts = TextList(v, "a chain such as \"ml-dsa-65\"",
                        "an array of chains such as [\"ecdsa-p256\", \"ml-dsa-65\"]");
  if (!texts) return texts.error();
  std::vector<ChainSpec> chains;
  for (const std::string& text : *texts) {
    auto c = ParseChainSpec(text);
    if (!c) return Bad(c.error().message);
    chains.push_back(std::move(*c));
  }
  s.server_chains = std::move(chains);
  return {};
}

// SetProviders: names in load order (["fips", "base"] or "fips,base").
Status SetProviders(const toml::node& v, ArmSettings& s) {
  auto texts = TextList(v, "a provider name such as \"fips\"",
                        "an array of provider names such as [\"fips\", \"base\"]");
  if (!texts) return texts.error();
  auto names = ParseProviderNames(fmt::format("{}", fmt::join(*texts, ",")));
  if (!names) return Bad(names.error().message);
  s.providers = std::move(*names);
  return {};
}

Status CheckSigalgs(const std::string& list) {
  if (list.empty()) return {};
  if (Status st = CheckSigalgList(list); !st) return Bad(st.error().message);
  return {};
}

Result<std::optional<uint64_t>> Payload(const std::string& text) {
  if (text == "OK") return std::optional<uint64_t>();
  auto n = ParseSize(text);
  if (!n) return Bad(fmt::format("'{}': {} (or \"OK\" for the 3-byte /)", text, n.error().message));
  if (*n == 0 || *n > (1ULL << 30)) return Bad(fmt::format("'{}' must be from 1B to 1G", text));
  return std::optional<uint64_t>(*n);
}

Result<Arrivals> ArrivalProcess(const std::string& text) {
  if (text == "uniform") return Arrivals::kUniform;
  if (text == "poisson") return Arrivals::kPoisson;
  return Bad(fmt::format("'{}' is not an arrival process (valid: uniform, poisson)", text));
}

Result<Protocol> ProtocolValue(const std::string& text) {
  auto p = ParseProtocol(text);
  if (!p) return Bad(p.error().message);
  return *p;
}

Result<TargetKind> Target(const std::string& text) {
  auto kind = ParseTargetKind(text);
  if (!kind)
    return Bad(
        fmt::format("'{}' is not a target (valid: embedded, nginx, haproxy, external)", text));
  return kind;
}

Result<Endpoint> Address(const std::string& text) {
  return ParseEndpoint(text);
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

// CheckBuildName: the names builds.cc accepts for [builds.NAME] ("this" included).
Status CheckBuildName(const std::string& text) {
  if (text.empty() ||
      text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos) {
    return Bad(
        fmt::format("'{}' is not a build name (\"this\", or a [builds.NAME] of the "
                    "scenario: letters, digits, '_', '-', '.')",
                    text));
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

// SetCpus: CPU numbers — one (1), an array ([0, 1]), or one string of them ','-separated (a
// `--set` or flag value: "0,1"); [] or "" for no placement. Whether this machine has them is
// known only where the trial runs (core/cpu_affinity.h).
template <auto Member>
Status SetCpus(const toml::node& v, ArmSettings& s) {
  std::vector<unsigned> cpus;
  auto add = [&cpus](int64_t c) -> Status {
    if (c < 0 || c > kMaxCpu) return Bad(fmt::format("CPU {} is not from 0 to {}", c, kMaxCpu));
    if (std::find(cpus.begin(), cpus.end(), c) != cpus.end()) {
      return Bad(fmt::format("CPU {} is named twice", c));
    }
    cpus.push_back(static_cast<unsigned>(c));
    return {};
  };
  constexpr std::string_view kForm = "CPU numbers such as 1, [0, 1] or \"0,1\"";
  if (auto one = v.value_exact<int64_t>()) {
    if (Status st = add(*one); !st) return st;
  } else if (const toml::array* a = v.as_array()) {
    for (const toml::node& e : *a) {
      auto c = e.value_exact<int64_t>();
      if (!c) return Bad(fmt::format("must be {}, not an array holding {}", kForm, TypeName(e)));
      if (Status st = add(*c); !st) return st;
    }
  } else if (auto text = v.value_exact<std::string>()) {
    for (std::string_view part :
         text->empty() ? std::vector<std::string_view>{} : Split(*text, ",")) {
      int64_t c = -1;
      const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), c);
      if (ec != std::errc() || end != part.data() + part.size() || part.empty()) {
        return Bad(fmt::format("'{}' in \"{}\" must be {}", part, *text, kForm));
      }
      if (Status st = add(c); !st) return st;
    }
  } else {
    return Bad(fmt::format("must be {}, not {}", kForm, TypeName(v)));
  }
  s.*Member = std::move(cpus);
  return {};
}

// The echoes: each value as the stored copy of an arm writes it (the text its setter reads).
template <auto Member>
nlohmann::json Echo(const ArmSettings& s) {
  return s.*Member;
}

template <auto Member>
nlohmann::json EchoDuration(const ArmSettings& s) {
  return FormatDuration(s.*Member);
}

template <auto Member>
nlohmann::json EchoGroups(const ArmSettings& s) {
  return fmt::format("{}", fmt::join(s.*Member, ":"));
}

using Json = nlohmann::json;
using K = KeySide;

constexpr std::array kKeys = {
    SettingKey{"tls", "group", "group every connection must negotiate (e.g. X25519MLKEM768)",
               K::kClient, false, "--expect-group,--group",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::group>(v, s, &GroupName);
               },
               &Echo<&ArmSettings::group>},
    SettingKey{"tls", "client_groups", "groups the client offers, ':'-separated (default: group)",
               K::kClient, false, "--groups,--client-groups",
               [](const toml::node& v, ArmSettings& s) {
                 return SetParsed<&ArmSettings::client_groups>(v, s, &GroupList);
               },
               &EchoGroups<&ArmSettings::client_groups>},
    SettingKey{"tls", "key_shares", "groups the client sends key shares for (default: the first)",
               K::kClient, false, "--key-shares",
               [](const toml::node& v, ArmSettings& s) {
                 return SetParsed<&ArmSettings::key_shares>(v, s, &GroupList);
               },
               &EchoGroups<&ArmSettings::key_shares>},
    SettingKey{"tls", "server_groups",
               "server preference, OpenSSL syntax ('/' between tuples; default: target's)",
               K::kServer, false, "",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::server_groups>(v, s, nullptr);
               },
               &Echo<&ArmSettings::server_groups>},
    SettingKey{"tls", "chain", "certificate chain, leaf first (e.g. ml-dsa-65/ml-dsa-87)",
               K::kServer, false, "",
               [](const toml::node& v, ArmSettings& s) {
                 return SetParsed<&ArmSettings::chain>(v, s, &Chain);
               },
               [](const ArmSettings& s) { return Json(s.chain.text); }},
    SettingKey{"tls", "server_chains",
               "chains the server holds, one per leaf key type, picked by the client's sigalgs "
               "([\"ecdsa-p256\", \"ml-dsa-65\"]; default: chain alone)",
               K::kServer, false, "", &SetChains,
               [](const ArmSettings& s) {
                 Json out = Json::array();  // as set: empty = `chain` alone
                 for (const ChainSpec& c : s.server_chains) out.push_back(c.text);
                 return out;
               }},
    SettingKey{"tls", "sigalgs",
               "signature schemes the client offers, OpenSSL names, ':'-separated (e.g. "
               "mldsa65:ecdsa_secp256r1_sha256; default: OpenSSL's list)",
               K::kClient, false, "--sigalgs",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::sigalgs>(v, s, &CheckSigalgs);
               },
               &Echo<&ArmSettings::sigalgs>},
    SettingKey{"tls", "providers",
               "OpenSSL providers of the client and the tool's server, in load order ([\"fips\", "
               "\"base\"]; default: OpenSSL's default provider)",
               K::kClient, false, "", &SetProviders,
               [](const ArmSettings& s) {
                 return Json(s.providers.empty() ? std::string("default")
                                                 : fmt::format("{}", fmt::join(s.providers, ",")));
               }},
    SettingKey{"tls", "property_query",
               "property query of every algorithm fetch under those providers (e.g. fips=yes)",
               K::kClient, false, "",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::property_query>(v, s, nullptr);
               },
               &Echo<&ArmSettings::property_query>},
    SettingKey{"tls", "provider_path",
               "directory of the providers' modules (default: the OpenSSL build's)", K::kClient,
               false, "",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::provider_path>(v, s, nullptr);
               },
               &Echo<&ArmSettings::provider_path>},
    SettingKey{"target", "tickets", "server issues session tickets (true/false)", K::kServer, true,
               "", &SetBool<&ArmSettings::tickets>, &Echo<&ArmSettings::tickets>},
    SettingKey{"target", "session_cache", "server-side session cache (true/false)", K::kServer,
               true, "", &SetBool<&ArmSettings::session_cache>, &Echo<&ArmSettings::session_cache>},
    SettingKey{"target", "early_data",
               "server accepts 0-RTT early data on its tickets, with anti-replay (true/false)",
               K::kServer, true, "", &SetBool<&ArmSettings::early_data>,
               &Echo<&ArmSettings::early_data>},
    SettingKey{"target", "quic_retry",
               "h3: the server validates every client's address with a Retry before its "
               "handshake (one more round trip, as an exposed server; true/false)",
               K::kServer, true, "", &SetBool<&ArmSettings::quic_retry>,
               &Echo<&ArmSettings::quic_retry>},
    SettingKey{"target", "record_clients",
               "the embedded server records every connection's ClientHello and outcome into the "
               "trial directory's clients.sqlite (report --clients; true/false)",
               K::kServer, true, "", &SetBool<&ArmSettings::record_clients>,
               &Echo<&ArmSettings::record_clients>},
    SettingKey{"target", "target",
               "server of the arm: embedded | nginx | haproxy | external (in [target], spelt kind)",
               K::kTarget, false, "",
               [](const toml::node& v, ArmSettings& s) {
                 return SetParsed<&ArmSettings::target>(v, s, &Target);
               },
               [](const ArmSettings& s) { return Json(TargetKindName(s.target)); }},
    SettingKey{"target", "build",
               "binaries that measure the arm: \"this\" (the running pqc-bench) or a "
               "[builds.NAME] of the scenario (another build of the tool, nginx or HAProxy)",
               K::kTarget, false, "",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::build>(v, s, &CheckBuildName);
               },
               &Echo<&ArmSettings::build>},
    SettingKey{"target", "address",
               "HOST:PORT of an external target (an IP address or localhost; names are not "
               "resolved)",
               K::kTarget, false, "",
               [](const toml::node& v, ArmSettings& s) {
                 return SetParsed<&ArmSettings::address>(v, s, &Address);
               },
               [](const ArmSettings& s) { return Json(s.address.text); }},
    SettingKey{
        "target", "server_name",
        "external target: SNI, Host header and the name its certificate must carry "
        "(default: the address's host)",
        K::kTarget, false, "",
        [](const toml::node& v,
           ArmSettings& s) { return SetText<&ArmSettings::server_name>(v, s, &CheckServerName); },
        &Echo<&ArmSettings::server_name>},
    SettingKey{"target", "ca",
               "external target: PEM file of the CA(s) that verify its certificate (default: "
               "the system's trust store)",
               K::kTarget, false, "",
               [](const toml::node& v, ArmSettings& s) {
                 return SetText<&ArmSettings::ca>(v, s, nullptr);
               },
               [](const ArmSettings& s) {
                 return Json(s.ca.empty() ? std::string("system trust store") : s.ca);
               }},
    SettingKey{"load", "mode",
               "fresh | reuse | resume | early | a mix such as \"resume:80,fresh:20\"", K::kClient,
               false, "--mode",
               [](const toml::node& v, ArmSettings& s) {
                 return SetParsed<&ArmSettings::mode>(v, s, &ModeMix);
               },
               [](const ArmSettings& s) { return Json(ModeText(s.mode)); }},
    SettingKey{"load", "protocol",
               "h1 (HTTP/1.1 over TLS over TCP) | h2 (HTTP/2 over TLS over TCP, ALPN h2) | h3 "
               "(HTTP/3 over QUIC: TLS 1.3 inside QUIC, no TCP connect)",
               K::kClient, false, "--protocol",
               [](const toml::node& v, ArmSettings& s) {
                 return SetParsed<&ArmSettings::protocol>(v, s, &ProtocolValue);
               },
               [](const ArmSettings& s) { return Json(ProtocolName(s.protocol)); }},
    SettingKey{"load", "payload", "\"OK\" (GET /) or a response size such as \"10K\"", K::kClient,
               false, "--payload",
               [](const toml::node& v, ArmSettings& s) {
                 return SetParsed<&ArmSettings::payload>(v, s, &Payload);
               },
               [](const ArmSettings& s) {
                 return Json(s.payload ? FormatSize(*s.payload) : std::string("OK"));
               }},
    SettingKey{"load", "rate", "new connections per second (300 or \"300/s\")", K::kClient, false,
               "--rate", &SetRate, [](const ArmSettings& s) { return Json(EffectiveRate(s)); }},
    SettingKey{"load", "concurrency",
               "open keep-alive connections to hold (sets rate from requests × request_interval)",
               K::kClient, false, "--concurrency", &SetCount<&ArmSettings::concurrency, 1, 100000>,
               &Echo<&ArmSettings::concurrency>},
    SettingKey{"load", "closed_loop",
               "connections kept in flight, each replaced when it ends (closed loop; rate unused)",
               K::kClient, false, "--closed-loop", &SetCount<&ArmSettings::closed_loop, 1, 100000>,
               &Echo<&ArmSettings::closed_loop>},
    SettingKey{"load", "arrivals", "uniform | poisson", K::kClient, false, "--arrivals",
               [](const toml::node& v, ArmSettings& s) {
                 return SetParsed<&ArmSettings::arrivals>(v, s, &ArrivalProcess);
               },
               [](const ArmSettings& s) {
                 return Json(s.arrivals == Arrivals::kPoisson ? "poisson" : "uniform");
               }},
    SettingKey{"load", "busy_poll",
               "client threads poll instead of sleeping: no wake-up in connect times or start "
               "lag, at the cost of a CPU per client thread (true/false)",
               K::kClient, true, "--busy-poll", &SetBool<&ArmSettings::busy_poll>,
               &Echo<&ArmSettings::busy_poll>},
    SettingKey{"load", "expect_early_rejected",
               "an early arm measuring a server that refuses early data: rejection expected, "
               "acceptance invalid (true/false)",
               K::kClient, true, "--expect-early-rejected",
               &SetBool<&ArmSettings::expect_early_rejected>,
               &Echo<&ArmSettings::expect_early_rejected>},
    SettingKey{"load", "duration", "measured phase of a trial (\"20s\")", K::kClient, false,
               "--duration", &SetDuration<&ArmSettings::duration, false>,
               &EchoDuration<&ArmSettings::duration>},
    SettingKey{"load", "warmup", "discarded phase before it (\"3s\"; collects tickets for resume)",
               K::kClient, false, "--warmup", &SetDuration<&ArmSettings::warmup, true>,
               &EchoDuration<&ArmSettings::warmup>},
    SettingKey{"load", "requests", "requests per connection", K::kClient, false, "--requests",
               &SetCount<&ArmSettings::requests, 1, 1000000>, &Echo<&ArmSettings::requests>},
    SettingKey{"load", "request_interval",
               "think time between requests on a connection (\"100ms\")", K::kClient, false,
               "--request-interval", &SetDuration<&ArmSettings::request_interval, true>,
               &EchoDuration<&ArmSettings::request_interval>},
    SettingKey{"load", "streams",
               "HTTP/2 requests in flight at once on a connection, each on its own stream (1..100; "
               "protocol h2, streams ≤ requests)",
               K::kClient, false, "--streams", &SetCount<&ArmSettings::streams, 1, 100>,
               &Echo<&ArmSettings::streams>},
    SettingKey{"load", "client_threads", "load-generator threads", K::kClient, false,
               "--threads,--client-threads", &SetCount<&ArmSettings::client_threads, 1, 256>,
               &Echo<&ArmSettings::client_threads>},
    SettingKey{"target", "server_threads", "server event loops / nginx workers / HAProxy threads",
               K::kServer, false, "", &SetCount<&ArmSettings::server_threads, 1, 256>,
               &Echo<&ArmSettings::server_threads>},
    SettingKey{"load", "client_cpus",
               "CPUs the load threads run on ([0], \"0,1\"; [] = wherever the scheduler puts "
               "them)",
               K::kClient, false, "--cpus,--client-cpus", &SetCpus<&ArmSettings::client_cpus>,
               &Echo<&ArmSettings::client_cpus>},
    SettingKey{"target", "server_cpus",
               "CPUs the server the tool runs is confined to, all its threads and workers ([1]; "
               "[] = wherever the scheduler puts them)",
               K::kServer, false, "", &SetCpus<&ArmSettings::server_cpus>,
               &Echo<&ArmSettings::server_cpus>},
    SettingKey{"load", "timeout", "per-connection no-progress timeout (\"10s\")", K::kClient, false,
               "--timeout", &SetDuration<&ArmSettings::timeout, false>,
               &EchoDuration<&ArmSettings::timeout>},
    SettingKey{"load", "max_error_rate", "errors above this fraction invalidate a trial (\"1%\")",
               K::kClient, false, "--max-error-rate", &SetErrorRate,
               &Echo<&ArmSettings::max_error_rate>},
    SettingKey{"load", "max_lag_p99",
               "start lag p99 (intended → actual start) above which a trial is invalid: the load "
               "generator behind its schedule (\"20ms\")",
               K::kClient, false, "--max-lag-p99", &SetDuration<&ArmSettings::max_lag_p99, false>,
               &EchoDuration<&ArmSettings::max_lag_p99>},
    SettingKey{"load", "max_link_late_p99",
               "the emulated link's packet release error p99 above which a trial is invalid "
               "(\"1ms\")",
               K::kClient, false, "", &SetDuration<&ArmSettings::max_link_late_p99, false>,
               &EchoDuration<&ArmSettings::max_link_late_p99>},
    SettingKey{"load", "network", "network profile: \"loopback\" or a [networks.NAME] of this file",
               K::kClient, false, "",
               [](const toml::node& v,
                  ArmSettings& s) { return SetText<&ArmSettings::network>(v, s, &CheckNetwork); },
               &Echo<&ArmSettings::network>},
};

// The keys the stored copy of an arm names only for an external target.
bool ExternalOnly(std::string_view key) {
  return key == "address" || key == "server_name" || key == "ca";
}

}  // namespace

std::vector<std::string_view> ServerSideKeys() {
  std::vector<std::string_view> out;
  for (const SettingKey& k : kKeys) {
    if (k.side == KeySide::kServer) out.push_back(k.name);
  }
  return out;
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

Status ApplyText(const SettingKey& key, std::string_view text, ArmSettings& settings) {
  toml::table parsed;
  try {
    parsed = toml::parse(fmt::format("v = {}", text));
  } catch (const toml::parse_error&) {
    parsed.insert_or_assign("v", std::string(text));
  }
  return key.apply(*parsed.get("v"), settings);
}

Status ApplySetOverride(const std::string& kv, ArmSettings& base) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) {
    return MakeError(ErrorKind::kUsage, fmt::format("--set '{}': expected KEY=VALUE, e.g. "
                                                    "--set duration=5s",
                                                    kv));
  }
  const std::string key = kv.substr(0, eq);
  const SettingKey* k = FindSettingKey(key);
  if (k == nullptr) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--set: unknown key '{}' (valid: {})", key, SettingKeyNames()));
  }
  if (Status st = ApplyText(*k, std::string_view(kv).substr(eq + 1), base); !st) {
    return MakeError(ErrorKind::kUsage, fmt::format("--set {}: {}", kv, st.error().message));
  }
  return {};
}

nlohmann::json ToJson(const ArmSettings& s) {
  nlohmann::json j = nlohmann::json::object();
  const bool external = !ToolRunsServer(s);
  for (const SettingKey& k : kKeys) {
    if (ExternalOnly(k.name) && !external) continue;
    // Not applied to a server the tool does not run: never reported as if it were.
    j[std::string(k.name)] =
        external && k.side == KeySide::kServer ? nlohmann::json(kAsConfigured) : k.echo(s);
  }
  return j;
}

}  // namespace pqc::scenario
