// request_writer — the one request the load generator sends, built once per arm and reused
// for every request, so the hot path only copies bytes. Validation happens here, before a run
// starts, so a bad path in a scenario fails with a message instead of a server's 400.
#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

namespace pqc {

// ValidateRequestPath: origin-form path, starts with '/', no whitespace or control bytes.
Status ValidateRequestPath(std::string_view path);

// BuildGetRequest: "GET <path> HTTP/1.1" with Host and Connection (keep-alive or close)
// and nothing else: the bytes a request costs should be the same across arms and tools.
Result<std::string> BuildGetRequest(std::string_view host, std::string_view path, bool keep_alive);

}  // namespace pqc
