#include "http/routes.h"

#include <fmt/format.h>

#include <iterator>

#include "core/units.h"

namespace pqc {
namespace {

constexpr std::string_view kPayloadPrefix = "/payload/";

Route TextRoute(int status, std::string_view text) {
  return Route{status, text.size(), false, text};
}

}  // namespace

Route ResolveRoute(std::string_view target) {
  target = target.substr(0, target.find('?'));
  if (target == "/") return TextRoute(200, "OK\n");
  if (target.starts_with(kPayloadPrefix)) {
    auto size = ParseSize(target.substr(kPayloadPrefix.size()));
    if (size.ok() && *size <= kMaxPayloadBytes) return Route{200, *size, true, {}};
  }
  return ErrorRoute(404);
}

Route ErrorRoute(int status) {
  switch (status) {
    case 400:
      return TextRoute(status, "bad request\n");
    case 404:
      return TextRoute(status, "not found: try / or /payload/<size>, e.g. /payload/10K\n");
    case 405:
      return TextRoute(status, "method not allowed: GET or HEAD only\n");
    case 431:
      return TextRoute(status, "request header fields too large\n");
    default:
      return TextRoute(status, "error\n");
  }
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

void AppendResponseHead(const Route& route, bool keep_alive, std::string* out) {
  fmt::format_to(std::back_inserter(*out),
                 "HTTP/1.1 {} {}\r\nContent-Length: {}\r\nContent-Type: {}\r\nConnection: "
                 "{}\r\n\r\n",
                 route.status, ReasonPhrase(route.status), route.body_size,
                 route.is_payload ? "application/octet-stream" : "text/plain",
                 keep_alive ? "keep-alive" : "close");
}

}  // namespace pqc
