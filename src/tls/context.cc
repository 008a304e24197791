#include "tls/context.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "tls/ssl_error.h"

namespace pqc {
namespace {

Result<SslCtxPtr> NewTls13Context(const SSL_METHOD* method, const std::string& ciphersuites) {
  SslCtxPtr ctx(SSL_CTX_new(method));
  if (!ctx) return SslError("creating TLS context");
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION) != 1) {
    return SslError("restricting to TLS 1.3");
  }
  if (!ciphersuites.empty() && SSL_CTX_set_ciphersuites(ctx.get(), ciphersuites.c_str()) != 1) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("invalid TLS 1.3 cipher suites '{}' (e.g. "
                                 "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256): {}",
                                 ciphersuites, DrainSslErrors()));
  }
  return ctx;
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
  if (cfg.trust_anchor != nullptr) {
    X509_STORE* store = SSL_CTX_get_cert_store(ctx);
    if (X509_STORE_add_cert(store, cfg.trust_anchor) != 1) return SslError("adding trust anchor");
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
  // Idle keep-alive connections (thousands per thread) should not each hold 2 x 16 KiB.
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  // Whole flights per read(2) rather than a record header, then its body.
  SSL_CTX_set_read_ahead(ctx, 1);
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
  if (SSL_CTX_set_max_early_data(ctx, cfg.max_early_data) != 1 ||
      SSL_CTX_set_recv_max_early_data(ctx, cfg.max_early_data) != 1) {
    return MakeError(ErrorKind::kTls, fmt::format("setting max early data {}: {}",
                                                  cfg.max_early_data, DrainSslErrors()));
  }
  static const unsigned char kSidCtx[] = "pqc-bench";
  SSL_CTX_set_session_id_context(ctx, kSidCtx, sizeof kSidCtx - 1);
  return {};
}

}  // namespace

std::string SystemTrustStore() {
  if (const char* f = Env("SSL_CERT_FILE")) return f;
  if (const char* d = Env("SSL_CERT_DIR")) return d;
  return kDistributionBundle;
}

std::string TrustDescription(const ClientTlsConfig& cfg) {
  std::vector<std::string> parts;
  if (cfg.trust_anchor != nullptr) parts.emplace_back("the run's own root certificate");
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

Result<SslCtxPtr> MakeClientContext(const ClientTlsConfig& cfg) {
  auto ctx = NewTls13Context(TLS_client_method(), cfg.ciphersuites);
  if (!ctx) return ctx;
  auto groups = ClientGroupsString(cfg);
  if (!groups) return groups.error();
  if (SSL_CTX_set1_groups_list(ctx->get(), groups->c_str()) != 1) {
    return MakeError(
        ErrorKind::kUnsupported,
        fmt::format("client groups '{}' rejected by OpenSSL: {}", *groups, DrainSslErrors()));
  }
  if (!cfg.sigalgs.empty() && SSL_CTX_set1_sigalgs_list(ctx->get(), cfg.sigalgs.c_str()) != 1) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("signature algorithms '{}' rejected by OpenSSL (e.g. "
                                 "mldsa65:ecdsa_secp256r1_sha256:rsa_pss_rsae_sha256): {}",
                                 cfg.sigalgs, DrainSslErrors()));
  }
  if (!cfg.tickets) SSL_CTX_set_options(ctx->get(), SSL_OP_NO_TICKET);
  // Read whole flights per read(2), not a 5-byte record header and then its body: half the
  // system calls of a handshake, and a load generator's CPU is part of what it reports.
  SSL_CTX_set_read_ahead(ctx->get(), 1);
  // Releasing buffers saves memory on idle connections but costs an allocation per record:
  // only worth it when connections sit idle.
  if (cfg.release_buffers) SSL_CTX_set_mode(ctx->get(), SSL_MODE_RELEASE_BUFFERS);
  // The client keeps sessions itself (session store); OpenSSL's client cache stays off.
  SSL_CTX_set_session_cache_mode(ctx->get(), SSL_SESS_CACHE_OFF);
  if (Status st = SetVerification(ctx->get(), cfg); !st) return st.error();
  return ctx;
}

Result<SslCtxPtr> MakeServerContext(const ServerTlsConfig& cfg, const CertChain& chain) {
  auto ctx = NewTls13Context(TLS_server_method(), cfg.ciphersuites);
  if (!ctx) return ctx;
  if (Status s = ServerCommon(ctx->get(), cfg); !s) return s.error();
  if (SSL_CTX_use_certificate(ctx->get(), chain.leaf().cert.get()) != 1) {
    return MakeError(ErrorKind::kUnsupported,
                     fmt::format("OpenSSL cannot serve a {} certificate over TLS: {}",
                                 chain.leaf().sig->name, DrainSslErrors()));
  }
  if (SSL_CTX_use_PrivateKey(ctx->get(), chain.leaf().key.get()) != 1) {
    return SslError(fmt::format("loading the {} private key", chain.leaf().sig->name));
  }
  for (size_t i = 1; i < chain.sent_count(); ++i) {
    if (SSL_CTX_add1_chain_cert(ctx->get(), chain.links[i].cert.get()) != 1) {
      return SslError(fmt::format("adding intermediate certificate {}", i));
    }
  }
  return ctx;
}

Result<SslCtxPtr> MakeServerContextFromFiles(const ServerTlsConfig& cfg,
                                             const std::string& cert_file,
                                             const std::string& key_file) {
  auto ctx = NewTls13Context(TLS_server_method(), cfg.ciphersuites);
  if (!ctx) return ctx;
  if (Status s = ServerCommon(ctx->get(), cfg); !s) return s.error();
  if (SSL_CTX_use_certificate_chain_file(ctx->get(), cert_file.c_str()) != 1) {
    return MakeError(ErrorKind::kIo, fmt::format("loading certificate chain from {}: {}", cert_file,
                                                 DrainSslErrors()));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx->get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return MakeError(ErrorKind::kIo,
                     fmt::format("loading private key from {}: {}", key_file, DrainSslErrors()));
  }
  if (SSL_CTX_check_private_key(ctx->get()) != 1) {
    return MakeError(ErrorKind::kUsage, fmt::format("private key {} does not match certificate {}",
                                                    key_file, cert_file));
  }
  return ctx;
}

}  // namespace pqc
