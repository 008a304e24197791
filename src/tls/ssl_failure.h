// ssl_failure — sorts a failed non-blocking SSL call into a class a benchmark can count: the
// peer went away (cleanly or not), a reset, an alert from the peer, a protocol error on our
// side. One classification for both ends (the embedded server's counters and the load
// generator's error classes), so that the two always agree on what a failure was. OpenSSL's error
// queue is thread-local and would blame the next connection of the same event loop for this one's
// failure, so classifying also empties it.
#pragma once

#include <openssl/ssl.h>

#include <string>

namespace pqc {

enum class SslOutcome {
  kWantRead,   // not a failure: wait until readable
  kWantWrite,  // not a failure: wait until writable
  kClosed,     // close_notify or end of stream, with or without close_notify
  kReset,      // ECONNRESET / EPIPE
  kPeerAlert,  // the peer sent a fatal alert
  kProtocol,   // OpenSSL refused what it received (garbage, no common parameters, ...)
  kOther,      // any other socket error
};

struct SslFailure {
  SslOutcome outcome;
  std::string reason;         // OpenSSL's or the system's text; empty for waits and clean closes
  bool close_notify = false;  // kClosed: the peer sent close_notify (else only a TCP end)
};

// ClassifySslResult: for a call on ssl that returned rc <= 0; saved_errno is errno right
// after the call (set errno to 0 before it).
SslFailure ClassifySslResult(const SSL* ssl, int rc, int saved_errno);

}  // namespace pqc
