// primitives — the raw cryptographic operations behind a handshake, via OpenSSL's EVP API:
// key generation, signing/verification, KEM encapsulation/decapsulation and ECDH agreement.
// probe uses them to check the primitive layer; speed to time each one alone.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "tls/algorithms.h"
#include "tls/ossl_ptr.h"

namespace pqc {

using Bytes = std::vector<uint8_t>;

Result<PkeyPtr> GenerateSignatureKey(const SignatureInfo& sig);
Result<PkeyPtr> GenerateGroupKey(const GroupInfo& group);

// Sign: the signature over msg with the type's digest (or one-shot for EdDSA/ML-DSA/SLH-DSA).
Result<Bytes> Sign(const SignatureInfo& sig, EVP_PKEY* key, const Bytes& msg);
// Verify: ok() only if the signature checks out; a bad signature is an Error.
Status Verify(const SignatureInfo& sig, EVP_PKEY* key, const Bytes& msg, const Bytes& signature);

struct SharedSecretPair {
  Bytes initiator;        // what the client derives (decapsulation / its ECDH)
  Bytes responder;        // what the server derives (encapsulation / its ECDH)
  size_t wire_bytes = 0;  // ciphertext (KEM) or responder public key (ECDH) length
};

// DeriveSecret: ECDH (or X25519) agreement of `own` with `peer`'s public key.
Result<Bytes> DeriveSecret(EVP_PKEY* own, EVP_PKEY* peer, std::string_view label);

struct Encapsulation {
  Bytes ciphertext;
  Bytes secret;
};
// Encapsulate / Decapsulate: one KEM operation each (the server's and the client's share of a
// KEM group's exchange), timed separately by speed.
Result<Encapsulation> Encapsulate(const GroupInfo& group, EVP_PKEY* public_key);
Result<Bytes> Decapsulate(const GroupInfo& group, EVP_PKEY* private_key, const Bytes& ciphertext);

// KeyExchange: one full exchange against `client_key` as TLS does it: for a KEM the server
// encapsulates to the client's public key and the client decapsulates; for ECDH the server
// makes an ephemeral key and both derive. Both secrets are returned so callers can check them.
Result<SharedSecretPair> KeyExchange(const GroupInfo& group, EVP_PKEY* client_key);

}  // namespace pqc
