#include "tls/ssl_error.h"

#include <fmt/format.h>
#include <openssl/err.h>

namespace pqc {

std::string DrainSslErrors() {
  std::string out;
  unsigned long code = 0;
  while ((code = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? std::string("no OpenSSL error queued") : out;
}

Error SslError(std::string_view context) {
  return MakeError(ErrorKind::kTls, fmt::format("{}: {}", context, DrainSslErrors()));
}

}  // namespace pqc
