#include "tls/primitives.h"

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <string>

#include "tls/ssl_error.h"

namespace pqc {
namespace {

Result<PkeyPtr> Keygen(std::string_view type, std::string_view curve, unsigned rsa_bits,
                       std::string_view label) {
  std::string type_s(type);
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type_s.c_str(), nullptr));
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) <= 0) {
    return SslError(fmt::format("{}: key generation not available", label));
  }
  if (!curve.empty()) {
    std::string c(curve);
    if (EVP_PKEY_CTX_set_group_name(ctx.get(), c.c_str()) <= 0) {
      return SslError(fmt::format("{}: setting curve {}", label, curve));
    }
  }
  if (rsa_bits != 0 &&
      EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), static_cast<int>(rsa_bits)) <= 0) {
    return SslError(fmt::format("{}: setting RSA size", label));
  }
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_keygen(ctx.get(), &raw) <= 0) {
    return SslError(fmt::format("{}: key generation failed", label));
  }
  return PkeyPtr(raw);
}

const EVP_MD* DigestOf(const SignatureInfo& sig) {
  if (sig.digest.empty()) return nullptr;
  return sig.digest == "SHA384"   ? EVP_sha384()
         : sig.digest == "SHA512" ? EVP_sha512()
                                  : EVP_sha256();
}

// RSA signatures in TLS 1.3 are PSS; make the primitive layer measure the same thing.
Status ConfigureRsaPss(const SignatureInfo& sig, EVP_PKEY_CTX* pctx) {
  if (sig.family != SignatureFamily::kRsa) return {};
  if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) <= 0 ||
      EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) <= 0) {
    return SslError(fmt::format("{}: configuring RSA-PSS", sig.name));
  }
  return {};
}

}  // namespace

Result<PkeyPtr> GenerateSignatureKey(const SignatureInfo& sig) {
  return Keygen(sig.key_type, sig.ec_curve, sig.rsa_bits, sig.name);
}

Result<PkeyPtr> GenerateGroupKey(const GroupInfo& group) {
  return Keygen(group.evp_name, group.ec_curve, 0, group.name);
}

Result<Bytes> Sign(const SignatureInfo& sig, EVP_PKEY* key, const Bytes& msg) {
  MdCtxPtr md(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;  // owned by md
  if (!md || EVP_DigestSignInit(md.get(), &pctx, DigestOf(sig), nullptr, key) <= 0) {
    return SslError(fmt::format("{}: signing not available", sig.name));
  }
  if (Status s = ConfigureRsaPss(sig, pctx); !s) return s.error();
  size_t len = 0;
  if (EVP_DigestSign(md.get(), nullptr, &len, msg.data(), msg.size()) <= 0) {
    return SslError(fmt::format("{}: signing", sig.name));
  }
  Bytes out(len);
  if (EVP_DigestSign(md.get(), out.data(), &len, msg.data(), msg.size()) <= 0) {
    return SslError(fmt::format("{}: signing", sig.name));
  }
  out.resize(len);
  return out;
}

Status Verify(const SignatureInfo& sig, EVP_PKEY* key, const Bytes& msg, const Bytes& signature) {
  MdCtxPtr md(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  if (!md || EVP_DigestVerifyInit(md.get(), &pctx, DigestOf(sig), nullptr, key) <= 0) {
    return SslError(fmt::format("{}: verification not available", sig.name));
  }
  if (Status s = ConfigureRsaPss(sig, pctx); !s) return s;
  if (EVP_DigestVerify(md.get(), signature.data(), signature.size(), msg.data(), msg.size()) != 1) {
    return SslError(fmt::format("{}: signature did not verify", sig.name));
  }
  return {};
}

Result<SharedSecretPair> KeyExchange(const GroupInfo& group, EVP_PKEY* client_key) {
  SharedSecretPair out;
  if (!group.is_kem) {
    auto server_key = GenerateGroupKey(group);
    if (!server_key) return server_key.error();
    auto s = DeriveSecret(server_key->get(), client_key, group.name);
    if (!s) return s.error();
    auto c = DeriveSecret(client_key, server_key->get(), group.name);
    if (!c) return c.error();
    out.responder = std::move(*s);
    out.initiator = std::move(*c);
    size_t pub_len = 0;
    if (EVP_PKEY_get_octet_string_param(server_key->get(), OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY,
                                        nullptr, 0, &pub_len) > 0) {
      out.wire_bytes = pub_len;
    }
    return out;
  }
  auto enc = Encapsulate(group, client_key);
  if (!enc) return enc.error();
  auto dec = Decapsulate(group, client_key, enc->ciphertext);
  if (!dec) return dec.error();
  out.responder = std::move(enc->secret);
  out.initiator = std::move(*dec);
  out.wire_bytes = enc->ciphertext.size();
  return out;
}

Result<Bytes> DeriveSecret(EVP_PKEY* own, EVP_PKEY* peer, std::string_view label) {
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, own, nullptr));
  size_t len = 0;
  if (!ctx || EVP_PKEY_derive_init(ctx.get()) <= 0 ||
      EVP_PKEY_derive_set_peer(ctx.get(), peer) <= 0 ||
      EVP_PKEY_derive(ctx.get(), nullptr, &len) <= 0) {
    return SslError(fmt::format("{}: key agreement", label));
  }
  Bytes secret(len);
  if (EVP_PKEY_derive(ctx.get(), secret.data(), &len) <= 0) {
    return SslError(fmt::format("{}: key agreement", label));
  }
  secret.resize(len);
  return secret;
}

Result<Encapsulation> Encapsulate(const GroupInfo& group, EVP_PKEY* public_key) {
  PkeyCtxPtr enc(EVP_PKEY_CTX_new_from_pkey(nullptr, public_key, nullptr));
  size_t ct_len = 0, ss_len = 0;
  if (!enc || EVP_PKEY_encapsulate_init(enc.get(), nullptr) <= 0 ||
      EVP_PKEY_encapsulate(enc.get(), nullptr, &ct_len, nullptr, &ss_len) <= 0) {
    return SslError(fmt::format("{}: encapsulation not available", group.name));
  }
  Encapsulation out;
  out.ciphertext.resize(ct_len);
  out.secret.resize(ss_len);
  if (EVP_PKEY_encapsulate(enc.get(), out.ciphertext.data(), &ct_len, out.secret.data(), &ss_len) <=
      0) {
    return SslError(fmt::format("{}: encapsulation", group.name));
  }
  out.ciphertext.resize(ct_len);
  out.secret.resize(ss_len);
  return out;
}

Result<Bytes> Decapsulate(const GroupInfo& group, EVP_PKEY* private_key, const Bytes& ct) {
  PkeyCtxPtr dec(EVP_PKEY_CTX_new_from_pkey(nullptr, private_key, nullptr));
  size_t len = 0;
  if (!dec || EVP_PKEY_decapsulate_init(dec.get(), nullptr) <= 0 ||
      EVP_PKEY_decapsulate(dec.get(), nullptr, &len, ct.data(), ct.size()) <= 0) {
    return SslError(fmt::format("{}: decapsulation not available", group.name));
  }
  Bytes secret(len);
  if (EVP_PKEY_decapsulate(dec.get(), secret.data(), &len, ct.data(), ct.size()) <= 0) {
    return SslError(fmt::format("{}: decapsulation", group.name));
  }
  secret.resize(len);
  return secret;
}

}  // namespace pqc
