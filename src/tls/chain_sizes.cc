#include "tls/chain_sizes.h"

#include <fmt/format.h>
#include <openssl/x509.h>

#include "tls/primitives.h"
#include "tls/ssl_error.h"

namespace pqc {
namespace {

// RFC 8446 4.4.2: handshake header (4) + request context length (1) + list length (3),
// then per certificate: length (3) + DER + extensions length (2, empty).
constexpr size_t kCertMsgFixed = 4 + 1 + 3;
constexpr size_t kPerCertEntry = 3 + 2;
// RFC 8446 4.4.3: handshake header (4) + scheme (2) + signature length (2).
constexpr size_t kCertVerifyFixed = 4 + 2 + 2;

std::string Role(size_t i, size_t n) {
  if (i == 0) return n == 1 ? "leaf (self-signed)" : "leaf";
  if (i + 1 == n) return "root";
  return fmt::format("intermediate {}", i);
}

}  // namespace

Result<ChainSizes> MeasureChain(const CertChain& chain) {
  ChainSizes out;
  const size_t n = chain.links.size();
  for (size_t i = 0; i < n; ++i) {
    const ChainLink& link = chain.links[i];
    CertSize cs{.role = Role(i, n), .type = std::string(link.sig->name)};
    int spki = i2d_PUBKEY(link.key.get(), nullptr);
    if (spki <= 0) return SslError("encoding public key");
    cs.public_key_bytes = static_cast<size_t>(spki);
    const ASN1_BIT_STRING* sig = nullptr;
    X509_get0_signature(&sig, nullptr, link.cert.get());
    cs.signature_bytes = sig ? static_cast<size_t>(ASN1_STRING_length(sig)) : 0;
    auto der = CertDer(link.cert.get());
    if (!der) return der.error();
    cs.der_bytes = der->size();
    cs.sent = i < chain.sent_count();
    if (cs.sent) out.sent_der_bytes += cs.der_bytes;
    out.certs.push_back(std::move(cs));
  }
  out.certificate_message_bytes =
      kCertMsgFixed + out.sent_der_bytes + kPerCertEntry * chain.sent_count();
  // A real signature by the leaf key: ECDSA's DER length varies by a byte or two.
  auto signature = Sign(*chain.leaf().sig, chain.leaf().key.get(), Bytes(64, 0x20));
  if (!signature) return signature.error();
  out.certificate_verify_bytes = kCertVerifyFixed + signature->size();
  return out;
}

}  // namespace pqc
