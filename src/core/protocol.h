// protocol — the HTTP version an arm speaks, and the one place that says what each is: its
// transport (TLS over TCP, or TLS inside QUIC's own packets, RFC 9001), the ALPN token its
// ClientHello offers, and how it is named. h1 is HTTP/1.1 over TLS over TCP, h2 HTTP/2 over the
// same TLS stream (RFC 9113), h3 HTTP/3 over QUIC (RFC 9114). The short names are h2load's
// and curl's.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace pqc {

enum class Protocol : uint8_t { kH1, kH2, kH3 };

// ProtocolTransport: what carries the TLS handshake — a TCP stream or QUIC datagrams.
enum class ProtocolTransport : uint8_t { kTcp, kQuic };

struct ProtocolInfo {
  Protocol protocol;
  std::string_view name;       // "h1": settings, flags, the results' protocol column
  std::string_view long_name;  // "http/1.1": also accepted when parsing
  std::string_view what;       // for messages: "HTTP/1.1 over TLS over TCP"
  ProtocolTransport transport;
  // alpn: the token the client offers and requires back; empty = none offered (h1 keeps the
  // ClientHello of the tool's earlier versions, and of `openssl s_time`, without ALPN).
  std::string_view alpn;
};

// Protocols: every protocol the tool speaks, in the order it lists them.
std::span<const ProtocolInfo> Protocols();
const ProtocolInfo& Describe(Protocol p);

// ParseProtocol: "h1" | "h2" | "h3" (or "http/1.1", "h2", "http/3"); the error lists the
// valid names.
Result<Protocol> ParseProtocol(std::string_view text);
std::string_view ProtocolName(Protocol p);
inline bool OverQuic(Protocol p) {
  return Describe(p).transport == ProtocolTransport::kQuic;
}
// ToText / FromText: a protocol's name in a stored record (core/json_fields.h).
inline std::string_view ToText(Protocol p) {
  return ProtocolName(p);
}
bool FromText(std::string_view text, Protocol& out);
// ParseProtocolList: "h1,h3" — each protocol at most once, in any order; the error names the
// duplicate or the unknown entry.
Result<std::vector<Protocol>> ParseProtocolList(std::string_view text);

}  // namespace pqc
