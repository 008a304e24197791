// cert_store — the certificate chains of a run: each distinct chain made once (fresh keys),
// written into the run's directory (so nginx and the embedded server load the same files
// and a user can inspect them), and its root kept in memory as the client's trust anchor,
// so that every measured handshake also verifies the chain as a real client would.
#pragma once

#include <map>
#include <string>

#include "core/error.h"
#include "tls/cert_chain.h"
#include "tls/cert_files.h"

namespace pqc::scenario {

struct StoredChain {
  CertChain chain;
  ChainFiles files;
};

class CertStore {
 public:
  explicit CertStore(std::string dir) : dir_(std::move(dir)) {}
  // Get: the chain for `spec` ("ml-dsa-65/ml-dsa-87"), made on first use.
  Result<const StoredChain*> Get(const std::string& spec);

 private:
  std::string dir_;
  std::map<std::string, StoredChain> chains_;
};

}  // namespace pqc::scenario
