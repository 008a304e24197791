#include "tls/cert_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/file_output.h"

namespace pqc {
namespace {

// WriteFile: a new file with its mode from the start (a key never readable by others, not
// even for a moment), renamed over any old one (core/file_output.h).
Status WriteFile(const std::string& path, const void* data, size_t len, mode_t mode) {
  return WriteFileAtomically(path, {static_cast<const char*>(data), len}, mode, "certs");
}

}  // namespace

std::string FileRole(size_t i, size_t n) {
  if (i == 0) return "leaf";
  if (i + 1 == n) return "root";
  return fmt::format("intermediate-{}", i);
}

Result<ChainFiles> WriteChainFiles(const CertChain& chain, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return MakeError(ErrorKind::kIo, fmt::format("cannot create {}: {}", dir, ec.message()));
  ChainFiles out;
  const size_t n = chain.links.size();
  std::string chain_pem;
  for (size_t i = 0; i < n; ++i) {
    const ChainLink& link = chain.links[i];
    const std::string stem = fmt::format("{}/{}", dir, FileRole(i, n));
    auto pem = CertPem(link.cert.get());
    auto der = CertDer(link.cert.get());
    auto key = PrivateKeyPem(link.key.get());
    if (!pem) return pem.error();
    if (!der) return der.error();
    if (!key) return key.error();
    if (i < chain.sent_count()) chain_pem += *pem;
    const std::string files[3] = {stem + ".crt.pem", stem + ".der", stem + ".key.pem"};
    if (Status s = WriteFile(files[0], pem->data(), pem->size(), 0644); !s) return s.error();
    if (Status s = WriteFile(files[1], der->data(), der->size(), 0644); !s) return s.error();
    if (Status s = WriteFile(files[2], key->data(), key->size(), 0600); !s) return s.error();
    out.cert_der.push_back(files[1]);
    out.all.insert(out.all.end(), std::begin(files), std::end(files));
  }
  out.chain_pem = dir + "/chain.pem";
  if (Status s = WriteFile(out.chain_pem, chain_pem.data(), chain_pem.size(), 0644); !s) {
    return s.error();
  }
  out.all.push_back(out.chain_pem);
  out.leaf_key_pem = dir + "/leaf.key.pem";
  out.root_pem = dir + "/" + FileRole(n - 1, n) + ".crt.pem";
  return out;
}

}  // namespace pqc
