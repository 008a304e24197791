#include "tls/probe.h"

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/split.h"
#include "tls/cert_chain.h"
#include "tls/context.h"
#include "tls/loopback_handshake.h"
#include "tls/primitives.h"
#include "tls/ssl_error.h"

namespace pqc {
namespace {

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Squashed: lower case without '-' and '_' ("SLH-DSA-SHA2-128s" → "slhdsasha2128s").
std::string Squashed(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '-' && c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

std::string ProviderOf(const EVP_PKEY* key) {
  const OSSL_PROVIDER* p = key != nullptr ? EVP_PKEY_get0_provider(key) : nullptr;
  return p != nullptr ? OSSL_PROVIDER_get0_name(p) : "";
}

// CapabilityOwners: for a TLS capability ("TLS-GROUP", "TLS-SIGALG"), each name a loaded
// provider lists (lower case) → that provider's name.
std::map<std::string, std::string> CapabilityOwners(const char* capability, const char* key) {
  struct Walk {
    const char* capability;
    const char* key;
    std::map<std::string, std::string> owners;
    const char* provider = "";
  } walk{capability, key, {}};
  OSSL_PROVIDER_do_all(
      nullptr,
      [](OSSL_PROVIDER* prov, void* arg) -> int {
        auto* w = static_cast<Walk*>(arg);
        w->provider = OSSL_PROVIDER_get0_name(prov);
        (void)OSSL_PROVIDER_get_capabilities(
            prov, w->capability,
            [](const OSSL_PARAM params[], void* a) -> int {
              auto* wk = static_cast<Walk*>(a);
              const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, wk->key);
              const char* name = nullptr;
              if (p != nullptr && OSSL_PARAM_get_utf8_string_ptr(p, &name) == 1 &&
                  name != nullptr) {
                wk->owners.emplace(LowerAscii(name), wk->provider);
              }
              return 1;
            },
            w);
        return 1;
      },
      &walk);
  return walk.owners;
}

// ListedSigalgs: the signature schemes the TLS layer knows (built in and from providers),
// lower case and without '-' or '_', for matching a table name against.
std::set<std::string> ListedSigalgs() {
  std::set<std::string> out;
  if (char* list = SSL_get1_builtin_sigalgs(nullptr); list != nullptr) {
    for (std::string_view name : Split(list, ":")) out.insert(Squashed(name));
    OPENSSL_free(list);
  }
  for (const auto& [name, provider] :
       CapabilityOwners("TLS-SIGALG", OSSL_CAPABILITY_TLS_SIGALG_IANA_NAME)) {
    out.insert(Squashed(name));
  }
  return out;
}

Status PrimitiveGroup(const GroupInfo& group, std::string& provider) {
  auto key = GenerateGroupKey(group);
  if (!key) return key.error();
  provider = ProviderOf(key->get());
  auto secrets = KeyExchange(group, key->get());
  if (!secrets) return secrets.error();
  if (secrets->initiator.empty() || secrets->initiator != secrets->responder) {
    return MakeError(ErrorKind::kTls,
                     fmt::format("{}: both sides derived different secrets", group.name));
  }
  return {};
}

Status PrimitiveSignature(const SignatureInfo& sig, std::string& provider) {
  auto key = GenerateSignatureKey(sig);
  if (!key) return key.error();
  provider = ProviderOf(key->get());
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
  if (auto owners = CapabilityOwners("TLS-GROUP", OSSL_CAPABILITY_TLS_GROUP_NAME);
      owners.count(LowerAscii(group.name)) > 0) {
    out.tls_provider = owners[LowerAscii(group.name)];
  }
  if (Status s = PrimitiveGroup(group, out.provider); !s) {
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
  const std::string scheme = LowerAscii(sig.tls_sigalg);
  const auto listed = ListedSigalgs();
  out.tls_listed = scheme.empty() ? listed.count(Squashed(sig.key_type)) > 0
                                  : listed.count(Squashed(scheme)) > 0;
  if (auto owners = CapabilityOwners("TLS-SIGALG", OSSL_CAPABILITY_TLS_SIGALG_IANA_NAME);
      !scheme.empty() && owners.count(scheme) > 0) {
    out.tls_provider = owners[scheme];
  } else if (out.tls_listed) {
    out.tls_provider = "libssl";  // a scheme libssl has built in
  }
  if (Status s = PrimitiveSignature(sig, out.provider); !s) {
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
  // The key exchange is not what is probed here: the first group the providers allow (the
  // FIPS provider has no X25519 of its own).
  Result<SslCtxPtr> sctx = MakeError(ErrorKind::kTls, "no group");
  Result<SslCtxPtr> cctx = MakeError(ErrorKind::kTls, "no group");
  for (const char* group : {"X25519", "secp256r1", "SecP256r1MLKEM768"}) {
    sctx = MakeServerContext({.groups = group, .tickets = false}, *chain);
    if (!sctx && sctx.error().kind == ErrorKind::kUnsupported) break;  // the certificate itself
    cctx = MakeClientContext({.groups = {group},
                              .sigalgs = std::string(sig.tls_sigalg),
                              .tickets = false,
                              .trust_anchors = {chain->root().cert.get()}});
    if (sctx && cctx) break;
  }
  if (!sctx) {
    fail(sctx.error());
    return out;
  }
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
