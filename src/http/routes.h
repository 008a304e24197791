// routes — what the embedded target answers, as pure functions so the server stays a
// transport and the answers are unit-tested. Payload bodies are never built here: the server
// sends body_size bytes out of one buffer it fills once, so a 1M response costs no allocation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pqc {

// kMaxPayloadBytes: the largest /payload/<size> served (1 GiB); beyond is a 404.
inline constexpr uint64_t kMaxPayloadBytes = uint64_t{1} << 30;

struct Route {
  int status = 200;
  uint64_t body_size = 0;
  // is_payload: the body is body_size bytes of the shared payload buffer
  // (application/octet-stream); otherwise it is `text` (text/plain, static storage).
  bool is_payload = false;
  std::string_view text;
};

// ResolveRoute: "/" answers "OK\n"; "/payload/<size>" (100B, 10K, 1M; binary; bare = bytes;
// at most 1 GiB) answers that many bytes; anything else is 404. A query string is ignored.
Route ResolveRoute(std::string_view target);

// ErrorRoute: a short text answer for an error status (400, 404, 405, 431, ...).
Route ErrorRoute(int status);

// ReasonPhrase: "OK", "Not Found", ... ("Error" for codes not used by the target).
std::string_view ReasonPhrase(int status);

// AppendResponseHead: status line, Content-Length, Content-Type and Connection, then the
// blank line. Appends so that the server can reuse one output buffer per connection.
void AppendResponseHead(const Route& route, bool keep_alive, std::string* out);

}  // namespace pqc
