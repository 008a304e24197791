#include "core/protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/split.h"

namespace pqc {
namespace {

constexpr std::array<ProtocolInfo, 3> kProtocols{{
    {Protocol::kH1, "h1", "http/1.1", "HTTP/1.1 over TLS over TCP", ProtocolTransport::kTcp, ""},
    {Protocol::kH2, "h2", "h2", "HTTP/2 over TLS over TCP", ProtocolTransport::kTcp, "h2"},
    {Protocol::kH3, "h3", "http/3", "HTTP/3 over QUIC", ProtocolTransport::kQuic, "h3"},
}};

std::string ValidNames() {
  std::string out;
  for (const ProtocolInfo& p : kProtocols) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} for {}", p.name, p.what);
  }
  return out;
}

}  // namespace

std::span<const ProtocolInfo> Protocols() {
  return kProtocols;
}

const ProtocolInfo& Describe(Protocol p) {
  return kProtocols[static_cast<size_t>(p)];
}

Result<Protocol> ParseProtocol(std::string_view text) {
  for (const ProtocolInfo& p : kProtocols) {
    if (text == p.name || text == p.long_name) return p.protocol;
  }
  return MakeError(ErrorKind::kUsage,
                   fmt::format("unknown protocol '{}' (valid: {})", text, ValidNames()));
}

std::string_view ProtocolName(Protocol p) {
  return Describe(p).name;
}

Result<std::vector<Protocol>> ParseProtocolList(std::string_view text) {
  std::vector<Protocol> out;
  for (std::string_view item : Split(text, ",")) {
    if (item.empty()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("an empty entry in the protocol list '{}' (valid: h1, h2, h3 "
                                   "or a list of them such as h1,h3)",
                                   text));
    }
    auto p = ParseProtocol(item);
    if (!p) return p.error();
    if (std::find(out.begin(), out.end(), *p) != out.end()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("protocol '{}' given twice in '{}'", item, text));
    }
    out.push_back(*p);
  }
  return out;
}

bool FromText(std::string_view text, Protocol& out) {
  for (const ProtocolInfo& p : Protocols()) {
    if (p.name == text) {
      out = p.protocol;
      return true;
    }
  }
  return false;
}

}  // namespace pqc
