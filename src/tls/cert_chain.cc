#include "tls/cert_chain.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "tls/primitives.h"
#include "tls/ssl_error.h"

namespace pqc {
namespace {

const EVP_MD* CertDigest(const SignatureInfo& issuer) {
  if (issuer.digest.empty()) return nullptr;  // EdDSA, ML-DSA, SLH-DSA sign the message itself
  return issuer.digest == "SHA384"   ? EVP_sha384()
         : issuer.digest == "SHA512" ? EVP_sha512()
                                     : EVP_sha256();
}

Status AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return SslError(fmt::format("making extension {}", value));
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1) return SslError("adding extension");
  return {};
}

Result<X509NamePtr> MakeName(const std::string& cn) {
  X509NamePtr name(X509_NAME_new());
  if (!name ||
      X509_NAME_add_entry_by_txt(name.get(), "O", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>("pqc-bench"), -1, -1,
                                 0) != 1 ||
      X509_NAME_add_entry_by_txt(name.get(), "CN", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                 0) != 1) {
    return SslError("making certificate name");
  }
  return name;
}

std::string CommonName(size_t depth, size_t count, const SignatureInfo& sig) {
  if (depth == 0) return "localhost";
  if (depth + 1 == count) return fmt::format("pqc-bench root CA ({})", sig.name);
  return fmt::format("pqc-bench intermediate CA {} ({})", depth, sig.name);
}

// Issue: fills cert for subject key `key`, signed by issuer_key under issuer_cert
// (nullptr = self-signed).
Status Issue(X509* cert, EVP_PKEY* key, const std::string& cn, bool is_ca, long serial,
             X509* issuer_cert, EVP_PKEY* issuer_key, const SignatureInfo& issuer_sig) {
  auto name = MakeName(cn);
  if (!name) return name.error();
  if (X509_set_version(cert, X509_VERSION_3) != 1 ||
      ASN1_INTEGER_set(X509_get_serialNumber(cert), serial) != 1 ||
      X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert), 30L * 24 * 3600) == nullptr ||
      X509_set_subject_name(cert, name->get()) != 1 ||
      X509_set_issuer_name(cert, issuer_cert ? X509_get_subject_name(issuer_cert) : name->get()) !=
          1 ||
      X509_set_pubkey(cert, key) != 1) {
    return SslError(fmt::format("filling certificate '{}'", cn));
  }
  X509* issuer_for_ext = issuer_cert ? issuer_cert : cert;
  struct Ext {
    int nid;
    const char* value;
  };
  const Ext ca_exts[] = {{NID_basic_constraints, "critical,CA:TRUE"},
                         {NID_key_usage, "critical,keyCertSign,cRLSign"},
                         {NID_subject_key_identifier, "hash"}};
  const Ext leaf_exts[] = {{NID_basic_constraints, "critical,CA:FALSE"},
                           {NID_key_usage, "critical,digitalSignature"},
                           {NID_ext_key_usage, "serverAuth"},
                           {NID_subject_alt_name, "DNS:localhost,DNS:pqc-bench.test,IP:127.0.0.1"},
                           {NID_subject_key_identifier, "hash"}};
  for (const Ext& e : is_ca ? std::span<const Ext>(ca_exts) : std::span<const Ext>(leaf_exts)) {
    if (Status s = AddExtension(cert, issuer_for_ext, e.nid, e.value); !s) return s;
  }
  if (issuer_cert != nullptr) {
    if (Status s = AddExtension(cert, issuer_cert, NID_authority_key_identifier, "keyid:always");
        !s) {
      return s;
    }
  }
  if (X509_sign(cert, issuer_key, CertDigest(issuer_sig)) <= 0) {
    return SslError(fmt::format("signing certificate '{}' with {}", cn, issuer_sig.name));
  }
  return {};
}

void FreeX509Stack(STACK_OF(X509) * s) {
  sk_X509_free(s);
}  // certificates are borrowed
using X509StackPtr = OsslPtr<STACK_OF(X509), FreeX509Stack>;

}  // namespace

Result<ChainSpec> ParseChainSpec(std::string_view text) {
  ChainSpec spec;
  spec.text = std::string(text);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('/', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    if (item.empty()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("invalid chain '{}': empty element (write it leaf-first, "
                                   "e.g. ml-dsa-65/ml-dsa-87)",
                                   text));
    }
    auto sig = FindSignature(item);
    if (!sig) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("invalid chain '{}': {}", text, sig.error().message));
    }
    spec.links.push_back(*sig);
    start = end + 1;
  }
  if (spec.links.size() > 8) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("invalid chain '{}': at most 8 certificates", text));
  }
  return spec;
}

Result<CertChain> MakeChain(const ChainSpec& spec) {
  CertChain chain;
  chain.spec = spec;
  const size_t n = spec.links.size();
  chain.links.resize(n);
  // Root first, so that each certificate's issuer exists when it is signed.
  for (size_t i = n; i-- > 0;) {
    ChainLink& link = chain.links[i];
    link.sig = spec.links[i];
    auto key = GenerateSignatureKey(*link.sig);
    if (!key) return key.error();
    link.key = std::move(*key);
    link.cert.reset(X509_new());
    if (!link.cert) return SslError("allocating certificate");
    const bool is_root = i + 1 == n;
    const bool is_ca = !(i == 0);
    X509* issuer_cert = is_root ? nullptr : chain.links[i + 1].cert.get();
    EVP_PKEY* issuer_key = is_root ? link.key.get() : chain.links[i + 1].key.get();
    const SignatureInfo& issuer_sig = is_root ? *link.sig : *chain.links[i + 1].sig;
    // A lone certificate is both leaf and its own root: a leaf profile, self-signed.
    if (Status s =
            Issue(link.cert.get(), link.key.get(), CommonName(i, n, *link.sig), is_ca && n > 1,
                  static_cast<long>(1000 + i), issuer_cert, issuer_key, issuer_sig);
        !s) {
      return s.error();
    }
  }
  return chain;
}

Status VerifyChain(const CertChain& chain) {
  X509StorePtr store(X509_STORE_new());
  if (!store || X509_STORE_add_cert(store.get(), chain.root().cert.get()) != 1) {
    return SslError("building trust store");
  }
  X509StackPtr untrusted(sk_X509_new_null());
  for (size_t i = 1; i + 1 < chain.links.size(); ++i) {
    sk_X509_push(untrusted.get(), chain.links[i].cert.get());
  }
  X509StoreCtxPtr ctx(X509_STORE_CTX_new());
  if (!ctx ||
      X509_STORE_CTX_init(ctx.get(), store.get(), chain.leaf().cert.get(), untrusted.get()) != 1) {
    return SslError("initialising chain verification");
  }
  if (X509_verify_cert(ctx.get()) != 1) {
    int err = X509_STORE_CTX_get_error(ctx.get());
    return MakeError(
        ErrorKind::kTls,
        fmt::format("chain {} does not verify at depth {}: {}", chain.spec.text,
                    X509_STORE_CTX_get_error_depth(ctx.get()), X509_verify_cert_error_string(err)));
  }
  return {};
}

Result<std::vector<uint8_t>> CertDer(X509* cert) {
  unsigned char* buf = nullptr;
  int len = i2d_X509(cert, &buf);
  if (len <= 0) return SslError("encoding certificate");
  std::vector<uint8_t> out(buf, buf + len);
  OPENSSL_free(buf);
  return out;
}

namespace {
template <typename Write>
Result<std::string> ToPem(Write write, std::string_view what) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || !write(bio.get())) return SslError(fmt::format("writing {} as PEM", what));
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}
}  // namespace

Result<std::string> CertPem(X509* cert) {
  return ToPem([cert](BIO* b) { return PEM_write_bio_X509(b, cert) == 1; }, "certificate");
}

Result<std::vector<X509Ptr>> CertsFromPem(std::string_view pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return SslError("reading PEM certificates");
  std::vector<X509Ptr> certs;
  // Bounded by the text: each pass consumes one certificate.
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certs.emplace_back(cert);
  }
  ERR_clear_error();  // the end of the text
  if (certs.empty()) return MakeError(ErrorKind::kTls, "the PEM text holds no certificate");
  return certs;
}

Result<std::string> PrivateKeyPem(EVP_PKEY* key) {
  return ToPem(
      [key](BIO* b) {
        return PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
      },
      "private key");
}

}  // namespace pqc
