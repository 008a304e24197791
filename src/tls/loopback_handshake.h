// loopback_handshake — one real TLS 1.3 handshake between two contexts of this process over
// a TCP connection on 127.0.0.1, driven from one thread. probe uses it for the TLS layer
// (what OpenSSL actually negotiates, not what it claims to support); tests use it to check
// contexts without starting a server.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"
#include "tls/inspector.h"
#include "tls/ossl_ptr.h"

namespace pqc {

struct LoopbackResult {
  std::string group;   // negotiated group, as the client sees it
  std::string sigalg;  // server's CertificateVerify scheme ("" when resumed)
  std::string cipher;
  bool resumed = false;
  HandshakeFacts client_facts;
  uint64_t client_bytes_written = 0;  // TLS bytes on the socket during the handshake
  uint64_t client_bytes_read = 0;
  SslSessionPtr session;  // the client's session after the handshake (for resumption)
};

// LoopbackHandshake: handshake + one application-data round trip (so that TLS 1.3 session
// tickets arrive); `resume_from` offers a saved session. Fails with OpenSSL's error string
// from whichever side failed, or after timeout_ms.
Result<LoopbackResult> LoopbackHandshake(SSL_CTX* server, SSL_CTX* client,
                                         SSL_SESSION* resume_from = nullptr,
                                         int timeout_ms = 10000);

}  // namespace pqc
