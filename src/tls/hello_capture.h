// hello_capture — the server half of the observatory inside one TLS connection: keeps the
// client's first ClientHello as it arrives (SSL message callback), parses it once in the
// SSL_CTX's ClientHello callback — where a malformed or oversized one ends the handshake
// before the server has done any work for it — and notes what the server sent back
// (HelloRetryRequest, CertificateVerify scheme). Attached only when recording: a benchmark
// run's server pays nothing for it.
#pragma once

#include <openssl/ssl.h>

#include <optional>
#include <string>
#include <vector>

#include "tls/client_hello.h"
#include "tls/inspector.h"

namespace pqc {

struct HelloCapture {
  HandshakeFacts facts;                  // the server's messages (HRR, CertificateVerify)
  std::vector<uint8_t> first_hello;      // the first ClientHello, when within the size limit
  uint32_t first_hello_bytes = 0;        // its size, whatever it was
  uint32_t segments = 0;                 // data segments received when it was complete
  std::optional<ClientHelloInfo> hello;  // parsed (by the ClientHello callback)
  std::string refused;                   // why the callback refused it ("" = it did not)
};

// AttachHelloCapture: records into *capture for the lifetime of ssl (capture must outlive it);
// uses the SSL's app data, which nothing else in the server uses.
void AttachHelloCapture(SSL* ssl, HelloCapture* capture);

// InstallHelloCheck: the context's ClientHello callback: for a connection with a capture,
// parses its first ClientHello and refuses the handshake (decode_error alert) when it is
// malformed or over kMaxClientHelloBytes. Connections without a capture pass untouched.
void InstallHelloCheck(SSL_CTX* ctx);

}  // namespace pqc
