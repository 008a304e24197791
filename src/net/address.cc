#include "net/address.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace pqc {
namespace {

Error Invalid(std::string_view text, std::string_view why) {
  return MakeError(
      ErrorKind::kUsage,
      fmt::format("invalid address '{}': {}, e.g. 127.0.0.1:8443 or [::1]:8443", text, why));
}

// ParsePort: decimal 0..65535, digits only (from_chars alone would accept "80abc" partially).
bool ParsePort(std::string_view text, uint16_t* port) {
  if (text.empty() || text.size() > 5) return false;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  unsigned value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  if (value > 65535) return false;
  *port = static_cast<uint16_t>(value);
  return true;
}

// HostAddress: `host` (an IPv4 literal or "localhost", or, `bracketed`, an IPv6 literal) with
// `port`; errors name `text`, what the user wrote.
Result<SocketAddress> HostAddress(std::string_view text, std::string_view host, bool bracketed,
                                  uint16_t port) {
  if (host.empty()) return Invalid(text, "missing host, expected HOST:PORT");
  SocketAddress out;
  std::string host_z(host);  // inet_pton needs a terminated string
  if (!bracketed &&
      (host == "localhost" || host_z.find_first_not_of("0123456789.") == std::string::npos)) {
    if (host == "localhost") host_z = "127.0.0.1";
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(port);
    if (inet_pton(AF_INET, host_z.c_str(), &sin.sin_addr) != 1) {
      return Invalid(text, "host is not an IPv4 address (names are not resolved)");
    }
    std::memcpy(&out.storage, &sin, sizeof(sin));
    out.len = sizeof(sin);
    return out;
  }
  if (!bracketed) return Invalid(text, "host must be an IP literal or localhost (no DNS)");
  sockaddr_in6 sin6{};
  sin6.sin6_family = AF_INET6;
  sin6.sin6_port = htons(port);
  if (inet_pton(AF_INET6, host_z.c_str(), &sin6.sin6_addr) != 1) {
    return Invalid(text, "host in brackets is not an IPv6 address");
  }
  std::memcpy(&out.storage, &sin6, sizeof(sin6));
  out.len = sizeof(sin6);
  return out;
}

}  // namespace

Result<SocketAddress> ParseAddress(std::string_view text) {
  std::string_view host;
  std::string_view port_text;
  bool bracketed = false;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos) return Invalid(text, "missing ']' after IPv6 address");
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return Invalid(text, "expected HOST:PORT");
    port_text = rest.substr(1);
    bracketed = true;
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return Invalid(text, "expected HOST:PORT");
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return Invalid(text, "an IPv6 address must be in brackets");
    }
  }
  if (host.empty()) return Invalid(text, "missing host, expected HOST:PORT");
  uint16_t port = 0;
  if (!ParsePort(port_text, &port)) return Invalid(text, "port must be a number 0-65535");
  return HostAddress(text, host, bracketed, port);
}

Result<SocketAddress> ParseHost(std::string_view text) {
  // A host alone holds a colon only as IPv6, so it needs no brackets here.
  const bool v6 = text.find(':') != std::string_view::npos;
  return HostAddress(text, text, v6, 0);
}

SocketAddress Ipv4Address(std::array<uint8_t, 4> ip, uint16_t port) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(port);
  std::memcpy(&sin.sin_addr, ip.data(), ip.size());  // network order: a.b.c.d as written
  SocketAddress out;
  std::memcpy(&out.storage, &sin, sizeof(sin));
  out.len = sizeof(sin);
  return out;
}

Result<Endpoint> ParseEndpoint(std::string_view text) {
  auto socket = ParseAddress(text);
  if (!socket) return socket.error();
  if (socket->port() == 0) return Invalid(text, "the port must be 1-65535");
  return Endpoint{.socket = *socket, .host = AddressHost(text), .text = std::string(text)};
}

std::string AddressHost(std::string_view text) {
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    return close == std::string_view::npos ? std::string() : std::string(text.substr(1, close - 1));
  }
  const size_t colon = text.rfind(':');
  return colon == std::string_view::npos ? std::string() : std::string(text.substr(0, colon));
}

bool IsIpLiteral(const std::string& text) {
  in6_addr buf{};
  return inet_pton(AF_INET, text.c_str(), &buf) == 1 ||
         inet_pton(AF_INET6, text.c_str(), &buf) == 1;
}

SocketAddress AddressFromSockaddr(const sockaddr* sa, socklen_t len) {
  SocketAddress out;
  out.len = std::min<socklen_t>(len, sizeof(out.storage));
  std::memcpy(&out.storage, sa, out.len);
  return out;
}

SocketAddress SocketAddress::WithPort(uint16_t port) const {
  SocketAddress out = *this;
  if (family() == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&out.storage)->sin_port = htons(port);
  } else if (family() == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(&out.storage)->sin6_port = htons(port);
  }
  return out;
}

bool SocketAddress::IsLoopback() const {
  if (family() == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr.s_addr) >> 24) == 127;
  }
  if (family() == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(&a) != 0;
  }
  return false;
}

uint16_t SocketAddress::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  }
  return 0;
}

std::string SocketAddress::Host() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr, buf, sizeof(buf));
    return buf;
  }
  if (family() == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr, buf,
              sizeof(buf));
    return buf;
  }
  return "(unset address)";
}

std::string SourceOf(const SocketAddress& a) {
  if (a.family() != AF_INET6) return a.Host();
  const uint8_t* b = reinterpret_cast<const sockaddr_in6*>(&a.storage)->sin6_addr.s6_addr;
  return fmt::format("{:x}:{:x}:{:x}:{:x}::/64", b[0] << 8 | b[1], b[2] << 8 | b[3],
                     b[4] << 8 | b[5], b[6] << 8 | b[7]);
}

std::string SocketAddress::ToString() const {
  if (family() == AF_INET) return fmt::format("{}:{}", Host(), port());
  if (family() == AF_INET6) return fmt::format("[{}]:{}", Host(), port());
  return "(unset address)";
}

}  // namespace pqc
