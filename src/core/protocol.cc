#include "core/protocol.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/split.h"

namespace pqc {

Result<Protocol> ParseProtocol(std::string_view text) {
  if (text == "h1" || text == "http/1.1") return Protocol::kH1;
  if (text == "h3" || text == "http/3") return Protocol::kH3;
  return MakeError(ErrorKind::kUsage,
                   fmt::format("unknown protocol '{}' (valid: h1 for HTTP/1.1 over TLS over TCP, "
                               "h3 for HTTP/3 over QUIC)",
                               text));
}

std::string_view ProtocolName(Protocol p) {
  return p == Protocol::kH3 ? "h3" : "h1";
}

Result<std::vector<Protocol>> ParseProtocolList(std::string_view text) {
  std::vector<Protocol> out;
  for (std::string_view item : Split(text, ",")) {
    if (item.empty()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("an empty entry in the protocol list '{}' (valid: h1, h3 or "
                                   "h1,h3)",
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

}  // namespace pqc
