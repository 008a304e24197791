// ssl_error — turns OpenSSL's thread-local error queue into text, so that a failure is
// reported once with its context ("issuing certificate: ...") and the queue is left empty
// for the next operation (stale errors would be blamed on the wrong call).
#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

namespace pqc {

// DrainSslErrors: all queued errors, "; "-joined, or "no OpenSSL error queued". Clears the queue.
std::string DrainSslErrors();

// SslError: an Error of kind kTls whose message is "<context>: <queued errors>".
Error SslError(std::string_view context);

}  // namespace pqc
