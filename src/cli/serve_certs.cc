#include "cli/serve_certs.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "core/file_output.h"
#include "core/paths.h"

namespace pqc::cli {
namespace {

// WriteTrustAnchors: every chain's root, one PEM file (a client that trusts it verifies
// whichever chain the server picks for it).
Status WriteTrustAnchors(const std::vector<CertChain>& chains, const std::string& path) {
  std::string text;
  for (const CertChain& chain : chains) {
    auto pem = CertPem(chain.root().cert.get());
    if (!pem) return pem.error();
    text += *pem;
  }
  return WriteFileAtomically(path, text, kPublicFile, "--write-ca");
}

// MakeChains: one fresh chain per --cert.
Result<std::vector<CertChain>> MakeChains(const std::vector<std::string>& specs) {
  std::vector<CertChain> chains;
  for (const std::string& text : specs) {
    auto spec = ParseChainSpec(text);
    if (!spec)
      return MakeError(spec.error().kind, fmt::format("--cert {}: {}", text, spec.error().message));
    auto made = MakeChain(*spec);
    if (!made) return made.error();
    chains.push_back(std::move(*made));
  }
  return chains;
}

}  // namespace

Result<ServerCerts> MakeServerCerts(const ServeFlags& f) {
  ServerCerts out;
  if (!f.cert_files.empty()) {
    if (f.cert_files.size() != f.key_files.size()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--cert-file given {} times and --key-file {}: each chain file "
                                   "needs its key file, in the same order",
                                   f.cert_files.size(), f.key_files.size()));
    }
    for (size_t i = 0; i < f.cert_files.size(); ++i) {
      out.files.push_back({AbsolutePath(f.cert_files[i]), AbsolutePath(f.key_files[i])});
    }
    out.what = fmt::format("{}", fmt::join(f.cert_files, " + "));
    return out;
  }
  auto chains = MakeChains(f.certs);
  if (!chains) return chains.error();
  out.chains = std::move(*chains);
  out.what = fmt::format("{}", fmt::join(f.certs, " + "));
  if (!f.write_ca.empty()) {
    if (Status s = WriteTrustAnchors(out.chains, f.write_ca); !s) return s.error();
  }
  return out;
}

Error ExplainServeError(Error e) {
  if (e.message.find("unknown certificate type") != std::string::npos) {
    e.kind = ErrorKind::kUnsupported;
    e.message +=
        "\n  SLH-DSA keys and certificates work (pqc-bench certs makes and verifies them), but "
        "OpenSSL 3.5 cannot use them in TLS; serve an ml-dsa-* chain for a post-quantum "
        "certificate";
  }
  return e;
}

}  // namespace pqc::cli
