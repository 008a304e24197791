// protocol — the HTTP version an arm speaks, and so its transport: HTTP/1.1 over TLS over TCP
// (h1), or HTTP/3 over QUIC (h3), whose handshake is TLS 1.3 inside QUIC's own packets
// (RFC 9001). The names are the ALPN tokens' short forms, as h2load and curl spell them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace pqc {

enum class Protocol : uint8_t { kH1, kH3 };

// ParseProtocol: "h1" | "h3" (also "http/1.1" and "http/3"); the error lists the valid names.
Result<Protocol> ParseProtocol(std::string_view text);
std::string_view ProtocolName(Protocol p);
// ParseProtocolList: "h1,h3" — one or both, each once, in any order; the error names the
// duplicate or the unknown entry.
Result<std::vector<Protocol>> ParseProtocolList(std::string_view text);

}  // namespace pqc
