// cert_chain — keys and X.509 certificates for a chain written leaf-first
// ("ml-dsa-65/ml-dsa-87": an ML-DSA-65 leaf issued by an ML-DSA-87 root), made in memory so
// that every arm of a run can get a fresh chain of any type, mixed chains included.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "tls/algorithms.h"
#include "tls/ossl_ptr.h"

namespace pqc {

// ChainSpec: the parsed "leaf/intermediate.../root" text; one element = self-signed leaf.
struct ChainSpec {
  std::vector<const SignatureInfo*> links;  // leaf first
  std::string text;                         // as given, for names and reports
};
Result<ChainSpec> ParseChainSpec(std::string_view text);

struct ChainLink {
  const SignatureInfo* sig;
  PkeyPtr key;
  X509Ptr cert;
};

// CertChain: leaf first, root last. The root is the trust anchor: with more than one link
// it is not sent in the Certificate message (as deployed servers do); a lone self-signed
// leaf is sent.
struct CertChain {
  ChainSpec spec;
  std::vector<ChainLink> links;

  const ChainLink& leaf() const { return links.front(); }
  const ChainLink& root() const { return links.back(); }
  // Certificates the server sends: every link but the root, or the leaf alone.
  size_t sent_count() const { return links.size() == 1 ? 1 : links.size() - 1; }
};

// MakeChain: fresh keys; root self-signed CA, intermediates CA, leaf for "localhost" with
// subjectAltName DNS:localhost and IP:127.0.0.1 (and the 198.18.0.0/15 test addresses' host
// name "pqc-bench.test"), valid from one hour ago for 30 days.
Result<CertChain> MakeChain(const ChainSpec& spec);

// VerifyChain: the leaf against the root as the only trust anchor, intermediates untrusted,
// as a TLS client would (X509_verify_cert). Error names the failing depth and reason.
Status VerifyChain(const CertChain& chain);

// DerBytes / PemText: encodings for files and sizes.
Result<std::vector<uint8_t>> CertDer(X509* cert);
Result<std::string> CertPem(X509* cert);
// CertsFromPem: every certificate of a PEM text (several roots in one, as `serve --write-ca`
// writes them); an error if there is none.
Result<std::vector<X509Ptr>> CertsFromPem(std::string_view pem);
Result<std::string> PrivateKeyPem(EVP_PKEY* key);

}  // namespace pqc
