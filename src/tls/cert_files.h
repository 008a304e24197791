// cert_files — writes a chain as the PEM/DER files servers (nginx, `serve --cert-file`) and
// clients load: chain.pem (what the server sends), leaf.key.pem, root.crt.pem (trust
// anchor), and every certificate as <role>.crt.pem / .der and key as <role>.key.pem.
// Private keys are created with mode 0600 (never world-readable, even for a moment).
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "tls/cert_chain.h"

namespace pqc {

struct ChainFiles {
  std::string chain_pem;  // leaf + intermediates
  std::string leaf_key_pem;
  std::string root_pem;
  std::vector<std::string> cert_der;  // per link, leaf first
  std::vector<std::string> all;       // every file written
};

// FileRole: "leaf", "intermediate-1", "root" — file name stems for link i of n.
std::string FileRole(size_t i, size_t n);

Result<ChainFiles> WriteChainFiles(const CertChain& chain, const std::string& dir);

}  // namespace pqc
