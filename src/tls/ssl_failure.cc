#include "tls/ssl_failure.h"

#include <openssl/err.h>

#include <cerrno>
#include <cstring>

#include "tls/ssl_error.h"

namespace pqc {
namespace {

SslFailure FromSyscall(int saved_errno) {
  switch (saved_errno) {
    case 0:  // end of stream without close_notify
      return {SslOutcome::kClosed, {}};
    case ECONNRESET:
    case EPIPE:
      return {SslOutcome::kReset, std::strerror(saved_errno)};
    default:
      return {SslOutcome::kOther, std::strerror(saved_errno)};
  }
}

SslFailure FromLibrary() {
  unsigned long e = ERR_peek_last_error();
  int reason = ERR_GET_REASON(e);
  std::string text = DrainSslErrors();  // clears the queue
  if (ERR_GET_LIB(e) == ERR_LIB_SSL) {
    // OpenSSL 3 reports a TCP end of stream without close_notify this way (1.1 reported it
    // as SSL_ERROR_SYSCALL with errno 0): the peer closing, not a local TLS failure.
    if (reason == SSL_R_UNEXPECTED_EOF_WHILE_READING) return {SslOutcome::kClosed, {}};
    // Received alerts are reported as SSL_AD_REASON_OFFSET + the alert description.
    if (reason >= SSL_AD_REASON_OFFSET && reason < SSL_AD_REASON_OFFSET + 256) {
      return {SslOutcome::kPeerAlert, std::move(text)};
    }
  }
  return {SslOutcome::kProtocol, std::move(text)};
}

}  // namespace

SslFailure ClassifySslResult(const SSL* ssl, int rc, int saved_errno) {
  switch (SSL_get_error(ssl, rc)) {
    case SSL_ERROR_WANT_READ:
      return {SslOutcome::kWantRead, {}};
    case SSL_ERROR_WANT_WRITE:
      return {SslOutcome::kWantWrite, {}};
    case SSL_ERROR_ZERO_RETURN:
      ERR_clear_error();
      return {SslOutcome::kClosed, {}, true};
    case SSL_ERROR_SYSCALL:
      if (ERR_peek_error() == 0) return FromSyscall(saved_errno);
      return FromLibrary();
    case SSL_ERROR_SSL:
      return FromLibrary();
    default:
      ERR_clear_error();
      return {SslOutcome::kOther, "unexpected SSL_get_error result"};
  }
}

}  // namespace pqc
