// serve_certs — the certificates `pqc-bench serve` holds: chains it makes now from --cert
// specs (their roots written to --write-ca for the clients to trust), or the user's
// --cert-file/--key-file pairs; and OpenSSL's refusal of a chain it cannot serve, explained.
#pragma once

#include <string>
#include <vector>

#include "cli/serve_flags.h"
#include "core/error.h"
#include "tls/cert_chain.h"
#include "tls/cert_files.h"
#include "tls/context.h"

namespace pqc::cli {

// ServerCerts: the --cert chains made now, or the --cert-file/--key-file pairs; `what` names
// them for the "listening on" line.
struct ServerCerts {
  std::vector<CertChain> chains;
  std::vector<CertKeyFiles> files;
  std::string what;
};

Result<ServerCerts> MakeServerCerts(const ServeFlags& f);

// ExplainServeError: OpenSSL's refusal of an SLH-DSA certificate is a measured fact, not a
// bug; the error says so (other errors unchanged).
Error ExplainServeError(Error e);

}  // namespace pqc::cli
