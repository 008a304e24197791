// chain_sizes — what a certificate chain costs on the wire: each certificate's public key,
// signature and DER size, and the TLS 1.3 Certificate and CertificateVerify messages the
// server sends. Whether those exceed the initial congestion window (10 segments of
// 1,460 bytes) decides whether a fresh handshake needs an extra round trip.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/slow_start.h"
#include "tls/cert_chain.h"

namespace pqc {

struct CertSize {
  std::string role;             // "leaf", "intermediate 1", "root"
  std::string type;             // signature type of this certificate's key
  size_t public_key_bytes = 0;  // SubjectPublicKeyInfo DER
  size_t signature_bytes = 0;   // the issuer's signature on this certificate
  size_t der_bytes = 0;
  bool sent = false;  // in the server's Certificate message
};

struct ChainSizes {
  std::vector<CertSize> certs;  // leaf first
  size_t sent_der_bytes = 0;    // DER of the certificates the server sends
  size_t certificate_message_bytes = 0;
  size_t certificate_verify_bytes = 0;  // with a real signature by the leaf key
  size_t cert_plus_verify() const { return certificate_message_bytes + certificate_verify_bytes; }
  bool exceeds_initial_window() const { return cert_plus_verify() > kInitialWindowBytes; }
};

Result<ChainSizes> MeasureChain(const CertChain& chain);

}  // namespace pqc
