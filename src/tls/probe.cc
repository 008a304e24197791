#include "tls/probe.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>

#include <algorithm>

#include "tls/cert_chain.h"
#include "tls/context.h"
#include "tls/loopback_handshake.h"
#include "tls/primitives.h"
#include "tls/ssl_error.h"

namespace pqc {
namespace {

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

Status PrimitiveGroup(const GroupInfo& group) {
  auto key = GenerateGroupKey(group);
  if (!key) return key.error();
  auto secrets = KeyExchange(group, key->get());
  if (!secrets) return secrets.error();
  if (secrets->initiator.empty() || secrets->initiator != secrets->responder) {
    return MakeError(ErrorKind::kTls,
                     fmt::format("{}: both sides derived different secrets", group.name));
  }
  return {};
}

Status PrimitiveSignature(const SignatureInfo& sig) {
  auto key = GenerateSignatureKey(sig);
  if (!key) return key.error();
  const Bytes msg = {'p', 'q', 'c', '-', 'b', 'e', 'n', 'c', 'h'};
  auto signature = Sign(sig, key->get(), msg);
  if (!signature) return signature.error();
  if (Status s = Verify(sig, key->get(), msg, *signature); !s) return s;
  // A verifier that accepts anything would pass the line above: check it rejects a forgery.
  Bytes forged = *signature;
  forged[forged.size() / 2] ^= 0x01;
  if (Verify(sig, key->get(), msg, forged)) {
    return MakeError(ErrorKind::kTls, fmt::format("{}: a corrupted signature verified", sig.name));
  }
  DrainSslErrors();
  return {};
}

// X.509 layer: issue (self-signed), encode, parse back, verify the parsed signature.
Status X509Layer(const CertChain& chain) {
  auto der = CertDer(chain.leaf().cert.get());
  if (!der) return der.error();
  const unsigned char* p = der->data();
  X509Ptr parsed(d2i_X509(nullptr, &p, static_cast<long>(der->size())));
  if (!parsed) return SslError("parsing the certificate back");
  EVP_PKEY* pub = X509_get0_pubkey(parsed.get());
  if (pub == nullptr) return SslError("reading the parsed certificate's public key");
  if (X509_verify(parsed.get(), pub) != 1) return SslError("verifying the parsed certificate");
  return {};
}

}  // namespace

std::string OpenSslVersion() {
  return fmt::format("{}.{}.{}", OPENSSL_version_major(), OPENSSL_version_minor(),
                     OPENSSL_version_patch());
}

GroupProbe ProbeGroup(const GroupInfo& group) {
  GroupProbe out{.group = &group};
  if (Status s = PrimitiveGroup(group); !s) {
    out.error = s.error().message;
  } else {
    out.primitive = true;
  }
  // The TLS layer runs even when the primitive failed: the two can disagree (a provider may
  // offer a TLS group without an EVP interface), and both facts are worth showing.
  auto spec = ParseChainSpec("ecdsa-p256");
  auto chain = spec ? MakeChain(*spec) : Result<CertChain>(spec.error());
  if (!chain) {
    if (out.error.empty()) out.error = chain.error().message;
    return out;
  }
  ServerTlsConfig scfg{.groups = std::string(group.name), .tickets = false};
  ClientTlsConfig ccfg{.groups = {std::string(group.name)}, .tickets = false};
  auto sctx = MakeServerContext(scfg, *chain);
  auto cctx = MakeClientContext(ccfg);
  if (!sctx || !cctx) {
    if (out.error.empty()) out.error = (!sctx ? sctx.error() : cctx.error()).message;
    return out;
  }
  auto hs = LoopbackHandshake(sctx->get(), cctx->get());
  if (!hs) {
    if (out.error.empty()) out.error = hs.error().message;
    return out;
  }
  out.negotiated = hs->group;
  out.tls = SameName(hs->group, group.name);
  if (!out.tls && out.error.empty()) {
    out.error = fmt::format("handshake negotiated {} instead of {}", hs->group, group.name);
  }
  return out;
}

SignatureProbe ProbeSignature(const SignatureInfo& sig) {
  SignatureProbe out{.sig = &sig};
  auto fail = [&out](const Error& e) {
    if (out.error.empty()) out.error = e.message;
  };
  if (Status s = PrimitiveSignature(sig); !s) {
    fail(s.error());
  } else {
    out.primitive = true;
  }
  ChainSpec spec{.links = {&sig}, .text = std::string(sig.name)};
  auto chain = MakeChain(spec);
  if (!chain) {
    fail(chain.error());
    return out;
  }
  if (Status s = X509Layer(*chain); !s) {
    fail(s.error());
  } else {
    out.x509 = true;
  }
  ServerTlsConfig scfg{.groups = "X25519", .tickets = false};
  auto sctx = MakeServerContext(scfg, *chain);
  if (!sctx) {
    fail(sctx.error());
    return out;
  }
  ClientTlsConfig ccfg{.groups = {"X25519"},
                       .sigalgs = std::string(sig.tls_sigalg),
                       .tickets = false,
                       .trust_anchor = chain->root().cert.get()};
  auto cctx = MakeClientContext(ccfg);
  if (!cctx) {
    fail(cctx.error());
    return out;
  }
  auto hs = LoopbackHandshake(sctx->get(), cctx->get());
  if (!hs) {
    fail(hs.error());
    return out;
  }
  out.negotiated = hs->sigalg;
  out.tls = !sig.tls_sigalg.empty() && hs->sigalg == sig.tls_sigalg;
  if (!out.tls) {
    fail(MakeError(ErrorKind::kTls, fmt::format("handshake used signature scheme {} instead of {}",
                                                hs->sigalg, sig.tls_sigalg)));
  }
  return out;
}

ProbeReport RunProbe(const std::vector<std::string>& only) {
  auto wanted = [&only](std::string_view name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  ProbeReport report{.openssl_version = OpenSslVersion()};
  for (const GroupInfo& g : AllGroups()) {
    if (wanted(g.name)) report.groups.push_back(ProbeGroup(g));
  }
  for (const SignatureInfo& s : AllSignatures()) {
    if (wanted(s.name)) report.signatures.push_back(ProbeSignature(s));
  }
  report.build = CurrentOpenSslBuild();
  return report;
}

}  // namespace pqc
