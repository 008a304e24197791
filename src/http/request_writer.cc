#include "http/request_writer.h"

#include <fmt/format.h>

#include <algorithm>

#include "http/syntax.h"

namespace pqc {
namespace {

bool IsVisible(char c) {
  auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7f;
}

}  // namespace

Status ValidateRequestPath(std::string_view path) {
  if (path.empty() || path.front() != '/') {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("invalid request path '{}': must start with '/', e.g. "
                                 "/payload/10K",
                                 http::Excerpt(path)));
  }
  if (!std::all_of(path.begin(), path.end(), IsVisible)) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("invalid request path '{}': spaces and control characters are "
                                 "not allowed (percent-encode them)",
                                 http::Excerpt(path)));
  }
  return {};
}

Result<std::string> BuildGetRequest(std::string_view host, std::string_view path, bool keep_alive) {
  if (Status s = ValidateRequestPath(path); !s) return s.error();
  if (host.empty() || !std::all_of(host.begin(), host.end(), IsVisible)) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("invalid Host '{}': must be non-empty, without spaces or "
                                 "control characters",
                                 http::Excerpt(host)));
  }
  return fmt::format("GET {} HTTP/1.1\r\nHost: {}\r\nConnection: {}\r\n\r\n", path, host,
                     keep_alive ? "keep-alive" : "close");
}

}  // namespace pqc
