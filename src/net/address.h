// SocketAddress — a numeric IPv4/IPv6 address and port, ready for bind/connect. The tool only
// talks to loopback and to the namespaces it creates, so names are never resolved: a typo must
// fail loudly instead of reaching some host through DNS. "localhost" is the one allowed name.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"

namespace pqc {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t len = 0;

  int family() const { return storage.ss_family; }
  const sockaddr* sa() const { return reinterpret_cast<const sockaddr*>(&storage); }
  uint16_t port() const;
  // WithPort: the same host, another port.
  SocketAddress WithPort(uint16_t port) const;
  // IsLoopback: 127.0.0.0/8 or ::1 (what only this machine can reach).
  bool IsLoopback() const;
  // Host: the address without its port ("127.0.0.1", "::1").
  std::string Host() const;
  // ToString: "127.0.0.1:8443" or "[::1]:8443" — the same syntax ParseAddress accepts.
  std::string ToString() const;
};

// ParseAddress: "HOST:PORT" with an IPv4 literal or "localhost", or "[IPV6]:PORT". Port 0 is
// accepted (bind to an ephemeral port); errors name the text and show an example.
Result<SocketAddress> ParseAddress(std::string_view text);

// ParseHost: a host without a port, as a flag names one ("10.0.0.1", "::1" without brackets,
// "localhost"), as an address with port 0; ParseAddress's rules and messages otherwise.
Result<SocketAddress> ParseHost(std::string_view text);

// Ipv4Address: an address the tool chooses itself, from its parts, so that it never goes
// through text (the emulated link's 198.18.0.1, loopback).
SocketAddress Ipv4Address(std::array<uint8_t, 4> ip, uint16_t port);
// LoopbackAddress: 127.0.0.1:port (port 0: bind to any free port).
inline SocketAddress LoopbackAddress(uint16_t port = 0) {
  return Ipv4Address({127, 0, 0, 1}, port);
}

// Endpoint: a server's address as the user wrote it, parsed once where it is read: where to
// connect, the host as written (an external server's default name: SNI, Host header and the
// name its certificate must carry) and the text itself (messages, stored settings).
struct Endpoint {
  SocketAddress socket;
  std::string host;
  std::string text;
  bool empty() const { return socket.len == 0; }
};

// ParseEndpoint: ParseAddress's syntax, a port 1-65535 (a server's, never "any").
Result<Endpoint> ParseEndpoint(std::string_view text);

// AddressHost: the host part of "HOST:PORT" as written ("localhost", "10.0.0.1", "::1"), "" if
// the text has no port.
std::string AddressHost(std::string_view text);
// IsIpLiteral: an IPv4 or IPv6 address in text form (no brackets).
bool IsIpLiteral(const std::string& text);

// SourceOf: what a per-source limit counts by — an IPv4 address, or an IPv6 address's /64 (a
// host is given a whole /64 and can pick any address in it): "10.0.0.9", "2001:db8:0:1::/64".
std::string SourceOf(const SocketAddress& a);

// AddressFromSockaddr: wraps what the kernel returned (accept, getsockname). The length is
// clamped to sockaddr_storage.
SocketAddress AddressFromSockaddr(const sockaddr* sa, socklen_t len);

}  // namespace pqc
