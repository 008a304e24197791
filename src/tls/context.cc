#include "tls/context.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/err.h>
#include <openssl/quic.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <vector>

#include "tls/ssl_error.h"

namespace pqc {
namespace {

Status SetSuites(SSL_CTX* ctx, const std::string& ciphersuites) {
  if (!ciphersuites.empty() && SSL_CTX_set_ciphersuites(ctx, ciphersuites.c_str()) != 1) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("invalid TLS 1.3 cipher suites '{}' (e.g. "
                                 "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256): {}",
                                 ciphersuites, DrainSslErrors()));
  }
  return {};
}

Result<SslCtxPtr> NewTls13Context(const SSL_METHOD* method, const std::string& ciphersuites,
                                  OSSL_LIB_CTX* libctx = nullptr, const std::string& propq = "") {
  SslCtxPtr ctx(SSL_CTX_new_ex(libctx, propq.empty() ? nullptr : propq.c_str(), method));
  if (!ctx) return SslError("creating TLS context");
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION) != 1) {
    return SslError("restricting to TLS 1.3");
  }
  if (Status s = SetSuites(ctx.get(), ciphersuites); !s) return s.error();
  return ctx;
}

// kAlpnH3: the one application protocol a QUIC arm speaks (RFC 9114), in ALPN's wire form.
constexpr unsigned char kAlpnH3[] = {2, 'h', '3'};

const SSL_METHOD* ClientMethod(Transport t) {
  return t == Transport::kQuic ? OSSL_QUIC_client_method() : TLS_client_method();
}
const SSL_METHOD* ServerMethod(Transport t) {
  return t == Transport::kQuic ? OSSL_QUIC_server_method() : TLS_server_method();
}

// SelectH3: QUIC requires ALPN; a client that offers no h3 gets no_application_protocol.
int SelectH3(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
             unsigned int inlen, void*) {
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, outlen, kAlpnH3, sizeof kAlpnH3, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

// SelectH2: a TCP server that speaks HTTP/2 prefers it, then HTTP/1.1; a client offering
// neither is answered without ALPN (it may still speak HTTP/1.1 without saying so).
int SelectH2(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
             unsigned int inlen, void*) {
  static constexpr unsigned char kServerOrder[] = {2,   'h', '2', 8,   'h', 't',
                                                   't', 'p', '/', '1', '.', '1'};
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, outlen, kServerOrder, sizeof kServerOrder, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

constexpr const char* kDistributionBundle = "/etc/ssl/certs/ca-certificates.crt";
constexpr const char* kDistributionDir = "/etc/ssl/certs";

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

Status LoadSystemTrust(SSL_CTX* ctx) {
  if (Env("SSL_CERT_FILE") != nullptr || Env("SSL_CERT_DIR") != nullptr) {
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
      return SslError("reading $SSL_CERT_FILE / $SSL_CERT_DIR");
    }
    return {};
  }
  if (SSL_CTX_load_verify_file(ctx, kDistributionBundle) != 1 &&
      SSL_CTX_load_verify_dir(ctx, kDistributionDir) != 1) {
    return MakeError(ErrorKind::kIo,
                     fmt::format("no system trust store: {} cannot be read ({}); install "
                                 "ca-certificates, set SSL_CERT_FILE, or give the server's CA "
                                 "with --ca FILE",
                                 kDistributionBundle, DrainSslErrors()));
  }
  return {};
}

Status SetVerification(SSL_CTX* ctx, const ClientTlsConfig& cfg) {
  bool verify = false;
  for (X509* anchor : cfg.trust_anchors) {
    X509_STORE* store = SSL_CTX_get_cert_store(ctx);
    // An anchor made in another library context is read again into the client's, so that
    // its key (and every signature check of the chain) uses the client's providers.
    X509Ptr own;
    if (cfg.libctx != nullptr) {
      unsigned char* der = nullptr;
      const int len = i2d_X509(anchor, &der);
      if (len <= 0) return SslError("encoding a trust anchor");
      own.reset(X509_new_ex(cfg.libctx, cfg.propq.empty() ? nullptr : cfg.propq.c_str()));
      const unsigned char* p = der;
      X509* into = own.get();
      const bool ok = own && d2i_X509(&into, &p, len) != nullptr;
      OPENSSL_free(der);
      if (!ok) return SslError("reading a trust anchor into the client's providers");
      anchor = own.get();
    }
    if (X509_STORE_add_cert(store, anchor) != 1) return SslError("adding trust anchor");
    verify = true;
  }
  if (!cfg.ca_file.empty()) {
    if (SSL_CTX_load_verify_file(ctx, cfg.ca_file.c_str()) != 1) {
      return MakeError(ErrorKind::kIo, fmt::format("CA file {}: no PEM certificate could be read "
                                                   "({})",
                                                   cfg.ca_file, DrainSslErrors()));
    }
    verify = true;
  }
  if (cfg.system_trust) {
    if (Status st = LoadSystemTrust(ctx); !st) return st;
    verify = true;
  }
  SSL_CTX_set_verify(ctx, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
  if (verify && !cfg.verify_name.empty()) {
    X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
    // An IP literal is matched against the certificate's IP addresses, a name against its DNS
    // names (wildcards as RFC 6125 allows).
    if (X509_VERIFY_PARAM_set1_ip_asc(param, cfg.verify_name.c_str()) != 1) {
      ERR_clear_error();
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      if (X509_VERIFY_PARAM_set1_host(param, cfg.verify_name.c_str(), 0) != 1) {
        return SslError(fmt::format("setting the name to verify ({})", cfg.verify_name));
      }
    }
  }
  return {};
}

Status ServerCommon(SSL_CTX* ctx, const ServerTlsConfig& cfg) {
  if (cfg.transport == Transport::kQuic) {
    // OpenSSL's QUIC stack (3.5) has no TLS early data (openssl-quic(7)): refused here rather
    // than silently measured as a plain resumption.
    if (cfg.max_early_data > 0) {
      return MakeError(ErrorKind::kUnsupported,
                       "0-RTT over QUIC: OpenSSL's QUIC server has no TLS early data "
                       "(openssl-quic(7)); use early_data = false on h3 arms");
    }
    SSL_CTX_set_alpn_select_cb(ctx, SelectH3, nullptr);
  } else {
    // Idle keep-alive connections (thousands per thread) should not each hold 2 x 16 KiB.
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    // Whole flights per read(2) rather than a record header, then its body.
    SSL_CTX_set_read_ahead(ctx, 1);
    if (cfg.h2) SSL_CTX_set_alpn_select_cb(ctx, SelectH2, nullptr);
  }
  if (SSL_CTX_set1_groups_list(ctx, cfg.groups.c_str()) != 1) {
    return MakeError(ErrorKind::kUsage, fmt::format("server groups '{}' rejected by OpenSSL: {}",
                                                    cfg.groups, DrainSslErrors()));
  }
  SSL_CTX_set_session_cache_mode(ctx,
                                 cfg.session_cache ? SSL_SESS_CACHE_SERVER : SSL_SESS_CACHE_OFF);
  if (!cfg.tickets) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    SSL_CTX_set_num_tickets(ctx, 0);
  } else {
    SSL_CTX_set_num_tickets(ctx, static_cast<size_t>(std::max(cfg.tickets_per_handshake, 1)));
  }
  if (cfg.max_early_data > 0 && !cfg.session_cache) {
    return MakeError(ErrorKind::kUsage,
                     "early data needs the server's session cache (OpenSSL's anti-replay "
                     "protection keeps each ticket's single use there): turn session_cache on");
  }
  if (cfg.transport == Transport::kTcp &&
      (SSL_CTX_set_max_early_data(ctx, cfg.max_early_data) != 1 ||
       SSL_CTX_set_recv_max_early_data(ctx, cfg.max_early_data) != 1)) {
    return MakeError(ErrorKind::kTls, fmt::format("setting max early data {}: {}",
                                                  cfg.max_early_data, DrainSslErrors()));
  }
  static const unsigned char kSidCtx[] = "pqc-bench";
  SSL_CTX_set_session_id_context(ctx, kSidCtx, sizeof kSidCtx - 1);
  return {};
}

// LeafKeyTypes: OpenSSL keeps one certificate per key type and silently replaces the first
// with a second of the same type; two such chains are refused instead, naming both.
class LeafKeyTypes {
 public:
  Status Add(EVP_PKEY* key, const std::string& what) {
    const char* type = key != nullptr ? EVP_PKEY_get0_type_name(key) : nullptr;
    if (type == nullptr) {
      return MakeError(ErrorKind::kUsage, fmt::format("{}: the leaf's key type is unknown", what));
    }
    auto [it, added] = seen_.emplace(type, what);
    if (!added) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("{} and {} both have a {} leaf key; a server holds one "
                                   "certificate per key type (ECDSA of any curve counts as one), "
                                   "so give chains of different types (e.g. ecdsa-p256 and "
                                   "ml-dsa-65)",
                                   it->second, what, type));
    }
    return {};
  }

 private:
  std::map<std::string, std::string> seen_;  // key type → the chain that has it
};

}  // namespace

Status CheckSigalgList(const std::string& list) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return SslError("creating a TLS context");
  if (SSL_CTX_set1_sigalgs_list(ctx.get(), list.c_str()) == 1) return {};
  ERR_clear_error();
  std::vector<std::string_view> known;
  for (const SignatureInfo& sig : AllSignatures()) {
    if (!sig.tls_sigalg.empty() &&
        std::find(known.begin(), known.end(), sig.tls_sigalg) == known.end()) {
      known.push_back(sig.tls_sigalg);
    }
  }
  return MakeError(ErrorKind::kUsage,
                   fmt::format("'{}' is not a signature-algorithm list OpenSSL accepts (names "
                               "separated by ':', e.g. {}; also rsa_pss_rsae_sha384, "
                               "rsa_pkcs1_sha256)",
                               list, fmt::join(known, ", ")));
}

std::string SystemTrustStore() {
  if (const char* f = Env("SSL_CERT_FILE")) return f;
  if (const char* d = Env("SSL_CERT_DIR")) return d;
  return kDistributionBundle;
}

std::string TrustDescription(const ClientTlsConfig& cfg) {
  std::vector<std::string> parts;
  if (cfg.trust_anchors.size() == 1) parts.emplace_back("the run's own root certificate");
  if (cfg.trust_anchors.size() > 1) {
    parts.push_back(fmt::format("the run's own {} root certificates", cfg.trust_anchors.size()));
  }
  if (!cfg.ca_file.empty()) parts.push_back("the CA file " + cfg.ca_file);
  if (cfg.system_trust) parts.push_back("the system trust store " + SystemTrustStore());
  if (parts.empty()) return "nothing (verification off)";
  std::string out = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) out += " and " + parts[i];
  if (!cfg.verify_name.empty()) out += ", for the name " + cfg.verify_name;
  return out;
}

Result<std::string> ClientGroupsString(const ClientTlsConfig& cfg) {
  if (cfg.groups.empty()) {
    return MakeError(ErrorKind::kUsage, "the client offers no groups (set --groups)");
  }
  std::vector<std::string> shares = cfg.key_shares;
  if (shares.empty()) shares.push_back(cfg.groups.front());
  for (const std::string& s : shares) {
    if (std::find(cfg.groups.begin(), cfg.groups.end(), s) == cfg.groups.end()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("key share group {} is not among the offered groups ({})", s,
                                   fmt::join(cfg.groups, ":")));
    }
  }
  std::string out;
  for (const std::string& g : cfg.groups) {
    if (!out.empty()) out += ':';
    if (std::find(shares.begin(), shares.end(), g) != shares.end()) out += '*';
    out += g;
  }
  return out;
}

Status SetClientOffer(SSL_CTX* ctx, const ClientTlsConfig& cfg) {
  if (Status s = SetSuites(ctx, cfg.ciphersuites); !s) return s;
  auto groups = ClientGroupsString(cfg);
  if (!groups) return groups.error();
  if (SSL_CTX_set1_groups_list(ctx, groups->c_str()) != 1) {
    return MakeError(
        ErrorKind::kUnsupported,
        fmt::format("client groups '{}' rejected by OpenSSL: {}", *groups, DrainSslErrors()));
  }
  if (!cfg.sigalgs.empty() && SSL_CTX_set1_sigalgs_list(ctx, cfg.sigalgs.c_str()) != 1) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("signature algorithms '{}' rejected by OpenSSL (e.g. "
                                 "mldsa65:ecdsa_secp256r1_sha256:rsa_pss_rsae_sha256): {}",
                                 cfg.sigalgs, DrainSslErrors()));
  }
  return {};
}

Result<SslCtxPtr> MakeClientContext(const ClientTlsConfig& cfg) {
  auto ctx = NewTls13Context(ClientMethod(cfg.transport), "", cfg.libctx, cfg.propq);
  if (!ctx) return ctx;
  if (Status s = SetClientOffer(ctx->get(), cfg); !s) return s.error();
  if (!cfg.tickets) SSL_CTX_set_options(ctx->get(), SSL_OP_NO_TICKET);
  const std::string alpn = cfg.alpn.empty() && cfg.transport == Transport::kQuic ? "h3" : cfg.alpn;
  if (!alpn.empty()) {
    if (alpn.size() > 255) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("ALPN token of {} bytes (at most 255)", alpn.size()));
    }
    // Wire form: the token's length, then the token. SSL_CTX_set_alpn_protos returns 0 on
    // success.
    const std::string wire = std::string(1, static_cast<char>(alpn.size())) + alpn;
    if (SSL_CTX_set_alpn_protos(ctx->get(), reinterpret_cast<const unsigned char*>(wire.data()),
                                static_cast<unsigned int>(wire.size())) != 0) {
      return SslError(fmt::format("offering ALPN {}", alpn));
    }
  }
  if (cfg.transport != Transport::kQuic) {
    // Read whole flights per read(2), not a 5-byte record header and then its body: half the
    // system calls of a handshake, and a load generator's CPU is part of what it reports.
    SSL_CTX_set_read_ahead(ctx->get(), 1);
  }
  // Releasing buffers saves memory on idle connections but costs an allocation per record:
  // only worth it when connections sit idle.
  if (cfg.release_buffers) SSL_CTX_set_mode(ctx->get(), SSL_MODE_RELEASE_BUFFERS);
  // The client keeps sessions itself (session store); OpenSSL's client cache stays off.
  SSL_CTX_set_session_cache_mode(ctx->get(), SSL_SESS_CACHE_OFF);
  if (Status st = SetVerification(ctx->get(), cfg); !st) return st.error();
  return ctx;
}

Result<SslCtxPtr> MakeServerContext(const ServerTlsConfig& cfg,
                                    std::span<const CertChain* const> chains) {
  auto ctx = NewTls13Context(ServerMethod(cfg.transport), cfg.ciphersuites);
  if (!ctx) return ctx;
  if (Status s = ServerCommon(ctx->get(), cfg); !s) return s.error();
  LeafKeyTypes types;
  for (const CertChain* chain : chains) {
    if (Status s = types.Add(chain->leaf().key.get(), chain->spec.text); !s) return s.error();
    if (SSL_CTX_use_certificate(ctx->get(), chain->leaf().cert.get()) != 1) {
      return MakeError(ErrorKind::kUnsupported,
                       fmt::format("OpenSSL cannot serve a {} certificate over TLS: {}",
                                   chain->leaf().sig->name, DrainSslErrors()));
    }
    if (SSL_CTX_use_PrivateKey(ctx->get(), chain->leaf().key.get()) != 1) {
      return SslError(fmt::format("loading the {} private key", chain->leaf().sig->name));
    }
    // The chain certificates attach to the certificate just set (OpenSSL's "current" one).
    for (size_t i = 1; i < chain->sent_count(); ++i) {
      if (SSL_CTX_add1_chain_cert(ctx->get(), chain->links[i].cert.get()) != 1) {
        return SslError(
            fmt::format("adding intermediate certificate {} of {}", i, chain->spec.text));
      }
    }
  }
  if (chains.empty()) return MakeError(ErrorKind::kUsage, "the server has no certificate");
  return ctx;
}

Result<SslCtxPtr> MakeServerContext(const ServerTlsConfig& cfg, const CertChain& chain) {
  const CertChain* one[] = {&chain};
  return MakeServerContext(cfg, one);
}

Result<SslCtxPtr> MakeServerContextFromFiles(const ServerTlsConfig& cfg,
                                             std::span<const CertKeyFiles> files) {
  auto ctx = NewTls13Context(ServerMethod(cfg.transport), cfg.ciphersuites);
  if (!ctx) return ctx;
  if (Status s = ServerCommon(ctx->get(), cfg); !s) return s.error();
  LeafKeyTypes types;
  for (const CertKeyFiles& f : files) {
    if (SSL_CTX_use_certificate_chain_file(ctx->get(), f.chain_file.c_str()) != 1) {
      return MakeError(ErrorKind::kIo, fmt::format("loading certificate chain from {}: {}",
                                                   f.chain_file, DrainSslErrors()));
    }
    // The leaf just loaded is the context's current certificate.
    X509* leaf = SSL_CTX_get0_certificate(ctx->get());
    if (Status s = types.Add(leaf != nullptr ? X509_get0_pubkey(leaf) : nullptr, f.chain_file);
        !s) {
      return s.error();
    }
    if (SSL_CTX_use_PrivateKey_file(ctx->get(), f.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      return MakeError(ErrorKind::kIo, fmt::format("loading private key from {}: {}", f.key_file,
                                                   DrainSslErrors()));
    }
    if (SSL_CTX_check_private_key(ctx->get()) != 1) {
      ERR_clear_error();
      return MakeError(
          ErrorKind::kUsage,
          fmt::format("private key {} does not match certificate {}", f.key_file, f.chain_file));
    }
  }
  if (files.empty()) return MakeError(ErrorKind::kUsage, "the server has no certificate");
  return ctx;
}

}  // namespace pqc
