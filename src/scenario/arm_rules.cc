// arm_rules — what follows from an arm's settings once they are read: the defaults that
// depend on other keys (offered groups, key shares, served chains, the effective rate, the
// request path), the mode mix's text form, and Validate, the whole-arm checks a single key
// cannot make. The key table and its readers are arm_settings.cc's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "client/mode_spec.h"
#include "core/split.h"
#include "core/units.h"
#include "scenario/arm_settings.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"
#include "tls/context.h"
#include "tls/providers.h"

namespace pqc::scenario {
namespace {

Error RuleError(std::string message) {
  return MakeError(ErrorKind::kConfig, std::move(message));
}

}  // namespace

ChainSpec DefaultChain() {
  auto chain = ParseChainSpec("ecdsa-p256");
  return chain ? std::move(*chain) : ChainSpec{};
}

bool ToolRunsServer(const ArmSettings& s) {
  return s.target != TargetKind::kExternal;
}

Result<std::vector<MixWeight>> ModeMix(const std::string& mode) {
  if (mode.find(':') != std::string::npos) return ParseMix(mode, "mode");
  if (mode == "mix") {
    return RuleError("mode \"mix\": give the weights instead, e.g. mode = \"resume:80,fresh:20\"");
  }
  auto m = ParseModes(mode, "");
  if (!m) {
    return RuleError(
        fmt::format("unknown mode '{}' (valid: fresh, reuse, resume, early, or a mix such as "
                    "\"resume:80,fresh:20\")",
                    mode));
  }
  return m;
}

std::string ModeText(const std::vector<MixWeight>& mode) {
  if (mode.size() == 1) return std::string(ConnModeName(mode.front().mode));
  std::string out;
  for (const MixWeight& w : mode) {
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", ConnModeName(w.mode), w.weight);
  }
  return out;
}

bool SingleMode(const ArmSettings& s, ConnMode mode) {
  return s.mode.size() == 1 && s.mode.front().mode == mode;
}

ProviderSpec ArmProviders(const ArmSettings& s) {
  return {.names = s.providers, .path = s.provider_path, .property_query = s.property_query};
}

std::vector<ChainSpec> ServedChains(const ArmSettings& s) {
  return s.server_chains.empty() ? std::vector<ChainSpec>{s.chain} : s.server_chains;
}

std::vector<std::string> OfferedGroups(const ArmSettings& s) {
  return s.client_groups.empty() ? std::vector<std::string>{s.group} : s.client_groups;
}

std::vector<std::string> KeyShareGroups(const ArmSettings& s) {
  return s.key_shares.empty() ? std::vector<std::string>{OfferedGroups(s).front()} : s.key_shares;
}

double EffectiveRate(const ArmSettings& s) {
  if (s.concurrency == 0 || s.request_interval <= 0) return s.rate;
  const double lifetime_s =
      static_cast<double>(s.requests) * static_cast<double>(s.request_interval) / 1e9;
  return static_cast<double>(s.concurrency) / lifetime_s;
}

uint64_t PayloadBytes(const ArmSettings& s) {
  return s.payload ? *s.payload : 3;
}

std::string RequestPath(const ArmSettings& s) {
  return s.payload ? "/payload/" + FormatSize(*s.payload) : std::string("/");
}

namespace {

// ValidateH3: what an h3 arm cannot ask for yet, each with the reason (docs/guide.md, "HTTP/3
// over QUIC").
Status ValidateH3(const ArmSettings& s) {
  if (std::any_of(s.mode.begin(), s.mode.end(),
                  [](const MixWeight& m) { return m.mode == ConnMode::kEarly; })) {
    return RuleError(
        "protocol h3 with mode early: OpenSSL 3.5's QUIC stack has no 0-RTT (it neither sends "
        "nor accepts early data over QUIC); measure 0-RTT over h1, or resumption (mode resume) "
        "over h3");
  }
  if (s.request_interval > 0) {
    return RuleError(
        "protocol h3 with request_interval: an HTTP/3 connection sends its requests one after "
        "another without think time; drop request_interval (requests alone still sets how many)");
  }
  if (s.record_clients) {
    return RuleError(
        "protocol h3 with record_clients: the observatory reads ClientHellos over TCP only");
  }
  return {};
}

// ValidateStreams: concurrent streams are HTTP/2's, and a connection's requests fill them.
Status ValidateStreams(const ArmSettings& s) {
  if (s.streams <= 1) return {};
  if (s.protocol != Protocol::kH2) {
    return RuleError(fmt::format(
        "streams = {} with protocol {}: only HTTP/2 carries requests side by side on one "
        "connection (HTTP/1.1 sends them one after another, and the tool's HTTP/3 client does "
        "too); set protocol = \"h2\", or streams = 1",
        s.streams, ProtocolName(s.protocol)));
  }
  if (s.streams > s.requests) {
    return RuleError(fmt::format(
        "streams = {} with requests = {}: a connection's streams are filled from its requests, "
        "so no more than {} can be in flight; raise requests to {} or more, or lower streams",
        s.streams, s.requests, s.requests, s.streams));
  }
  return {};
}

// ValidateRetry: quic_retry is a setting of a QUIC server the tool runs.
Status ValidateRetry(const ArmSettings& s) {
  if (!s.quic_retry) return {};
  if (s.protocol != Protocol::kH3) {
    return RuleError(
        fmt::format("quic_retry = true with protocol {}: a Retry is QUIC's (protocol "
                    "= \"h3\")",
                    ProtocolName(s.protocol)));
  }
  if (!ToolRunsServer(s)) {
    return RuleError(
        "quic_retry = true with an external target: its server validates addresses as its "
        "operator configured it");
  }
  if (s.target == TargetKind::kNginx) {
    // Measured: with `quic_retry on;` the set-up's nginx (1.26, OpenSSL's QUIC compatibility
    // layer) answered with no Retry (1 round trip, as with off). Refused until understood,
    // rather than an arm that says it measures what it does not.
    return RuleError(
        "quic_retry = true with target nginx: the set-up's nginx sends no Retry with quic_retry "
        "on (measured); use the embedded server or HAProxy");
  }
  return {};
}

}  // namespace

Status Validate(const ArmSettings& s, std::string_view arm_label) {
  auto fail = [&](const std::string& what) {
    return RuleError(fmt::format("arm '{}': {}", arm_label, what));
  };
  if (!s.client_groups.empty() &&
      std::find(s.client_groups.begin(), s.client_groups.end(), s.group) == s.client_groups.end()) {
    return fail(fmt::format("client_groups '{}' does not offer the arm's group {}",
                            fmt::join(s.client_groups, ":"), s.group));
  }
  if (s.chain.links.empty()) return fail("chain: no certificate type given");
  if (!s.server_chains.empty()) {
    std::vector<std::string> texts;
    std::map<std::string_view, std::string_view> key_types;  // leaf key type → chain
    for (const ChainSpec& c : s.server_chains) {
      texts.push_back(c.text);
      if (c.links.empty()) return fail("server_chains: an empty chain");
      auto [it, added] = key_types.emplace(c.links.front()->key_type, c.text);
      if (!added) {
        return fail(fmt::format(
            "server_chains: {} and {} both have a {} leaf key, and a server holds one "
            "certificate per key type (ECDSA of any curve counts as one); give chains of "
            "different types, e.g. [\"ecdsa-p256\", \"ml-dsa-65\"]",
            it->second, c.text, c.links.front()->key_type));
      }
    }
    if (std::find(texts.begin(), texts.end(), s.chain.text) == texts.end()) {
      return fail(
          fmt::format("chain '{}' (the chain this arm's connections must be served) is not one of "
                      "server_chains ({}); set chain to the one the arm's sigalgs should get",
                      s.chain.text, fmt::join(texts, ", ")));
    }
  }
  if (!ToolRunsServer(s)) {
    if (s.address.empty()) {
      return fail(
          "target external needs the server's address: address = \"HOST:PORT\" in [target], "
          "or run --target HOST:PORT");
    }
    if (s.network != "loopback") {
      return fail(fmt::format(
          "network '{}' is an emulated link between namespaces the tool makes, and an external "
          "server is outside them; run it on \"loopback\" (network = \"loopback\", or `run --only "
          "network=loopback` for a matrix's loopback arms), or emulate "
          "the link in front of your server with `pqc-bench link --no-server` (your server started "
          "in $PQC_SERVER_NETNS)",
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
    if (s.request_interval <= 0 || !SingleMode(s, ConnMode::kReuse)) {
      return fail(
          "concurrency needs mode = \"reuse\" with request_interval > 0 (each connection then "
          "lives requests × request_interval, and rate = concurrency / that lifetime)");
    }
  }
  if (s.closed_loop > 0 && s.concurrency > 0) {
    return fail("closed_loop and concurrency both fix how many connections are open; give one");
  }
  if (SingleMode(s, ConnMode::kResume) && !s.tickets && !s.session_cache) {
    return fail("mode resume needs tickets or session_cache on the server");
  }
  const bool early = std::any_of(s.mode.begin(), s.mode.end(),
                                 [](const MixWeight& m) { return m.mode == ConnMode::kEarly; });
  if (early && ToolRunsServer(s) && !s.early_data && !s.expect_early_rejected) {
    return fail(
        "mode early needs early_data = true on the server (or expect_early_rejected = true, to "
        "measure a server that refuses it)");
  }
  if (s.protocol == Protocol::kH3) {
    if (Status st = ValidateH3(s); !st) return fail(st.error().message);
  }
  if (Status st = ValidateRetry(s); !st) return fail(st.error().message);
  if (Status st = ValidateStreams(s); !st) return fail(st.error().message);
  if (s.record_clients && s.target != TargetKind::kEmbedded) {
    return fail(
        fmt::format("record_clients needs target = \"embedded\" (the server that reads "
                    "each ClientHello), not {}",
                    TargetKindName(s.target)));
  }
  if (s.early_data && !s.session_cache) {
    return fail(
        "early_data needs session_cache = true (anti-replay keeps each ticket's single "
        "use in the server's session cache)");
  }
  const double conns = EffectiveRate(s) * static_cast<double>(s.duration + s.warmup) / 1e9;
  if (conns < 1) {
    return fail(fmt::format("rate {:.3g}/s over {} gives no connection; raise rate or duration",
                            EffectiveRate(s), FormatDuration(s.duration + s.warmup)));
  }
  return {};
}

}  // namespace pqc::scenario
