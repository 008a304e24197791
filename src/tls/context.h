// context — builds the SSL_CTX for each side from an arm's settings. Every arm sets groups
// and key shares explicitly: OpenSSL's default client offers two key shares
// (X25519MLKEM768 and X25519), so a "classical" client on defaults would pay for ML-KEM too.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "tls/cert_chain.h"
#include "tls/ossl_ptr.h"

namespace pqc {

// Transport: TLS over TCP, or TLS inside QUIC (RFC 9001: OpenSSL's own QUIC stack, with ALPN
// h3, which QUIC makes mandatory; docs/development.md says why OpenSSL's stack).
enum class Transport : uint8_t { kTcp, kQuic };

struct ClientTlsConfig {
  Transport transport = Transport::kTcp;
  std::vector<std::string> groups;      // offered, in preference order (validated names)
  std::vector<std::string> key_shares;  // groups that get a key share; empty = first only
  std::string sigalgs;       // OpenSSL list ("mldsa65:ecdsa_secp256r1_sha256"); "" = default
  std::string ciphersuites;  // TLS 1.3 suites; "" = OpenSSL default
  bool tickets = true;       // accept session tickets (needed for resume)
  // alpn: the application protocol offered ("h2"; core/protocol.h says each protocol's);
  // empty = none over TCP, h3 over QUIC (which requires ALPN).
  std::string alpn;
  // Verification: against `trust_anchors` (the run's own roots: one per chain the server
  // holds), or the CAs of `ca_file`, or the system's trust store (`system_trust`); none of them
  // = no verification. `verify_name` (a DNS name or an IP literal) must then be in the
  // server's certificate; empty = not checked.
  std::vector<X509*> trust_anchors;
  std::string ca_file;
  bool system_trust = false;
  std::string verify_name;
  bool release_buffers = false;  // free TLS buffers of idle connections (many idle keep-alives)
  // The library context (providers) the client's TLS context is made in, and its property
  // query; nullptr = the process's default context. Borrowed: must outlive the context.
  OSSL_LIB_CTX* libctx = nullptr;
  std::string propq;
};

struct ServerTlsConfig {
  Transport transport = Transport::kTcp;
  // Server preference in OpenSSL syntax: ':' separates groups, '/' separates preference
  // tuples ("X25519MLKEM768/X25519" makes the server insist on the hybrid, with a
  // HelloRetryRequest if needed).
  std::string groups = "X25519MLKEM768:X25519";
  std::string ciphersuites;
  bool tickets = true;        // issue stateless session tickets
  bool session_cache = true;  // server-side session cache
  int tickets_per_handshake = 2;
  // max_early_data: bytes of 0-RTT data its tickets allow (0 = none: early data off).
  // OpenSSL's anti-replay stays on: each ticket is accepted for early data once, through the
  // server's session cache, which early data therefore needs.
  uint32_t max_early_data = 0;
  // h2: over TCP, ALPN chooses h2 for a client that offers it (else http/1.1; a client that
  // offers neither is answered without ALPN, as one that offers none).
  bool h2 = false;
};

// kEarlyDataBytes: what `early_data = true` allows: a request head, with room to spare.
inline constexpr uint32_t kEarlyDataBytes = 16384;

// SystemTrustStore: where the system's trust store is read from: $SSL_CERT_FILE or
// $SSL_CERT_DIR when set, else the distribution's bundle. (This OpenSSL is built into the
// set-up cache, so its compiled-in default directory holds no certificates.)
std::string SystemTrustStore();
// TrustDescription: how `cfg` verifies the server, for messages ("the CA file x.pem", "the
// system trust store /etc/ssl/certs/ca-certificates.crt", "the run's own root", "nothing").
std::string TrustDescription(const ClientTlsConfig& cfg);

// CheckSigalgList: a signature_algorithms list as OpenSSL reads it ("mldsa65:
// ecdsa_secp256r1_sha256"); the error names the list and the schemes this tool knows.
Status CheckSigalgList(const std::string& list);

// OpenSSL group-list string for a client: "*" marks a key share ("X25519MLKEM768:*X25519").
Result<std::string> ClientGroupsString(const ClientTlsConfig& cfg);

// SetClientOffer: what the client's ClientHello offers — `cfg`'s TLS 1.3 suites, groups with
// their key shares, signature algorithms — on a TLS or a QUIC context alike.
Status SetClientOffer(SSL_CTX* ctx, const ClientTlsConfig& cfg);

Result<SslCtxPtr> MakeClientContext(const ClientTlsConfig& cfg);

// CertKeyFiles: a PEM chain file (leaf, then intermediates) and the leaf's private key.
struct CertKeyFiles {
  std::string chain_file;
  std::string key_file;
};

// MakeServerContext with in-memory chains; their keys are shared with the context. A server
// may hold several chains, one per leaf key type (OpenSSL keeps one certificate per type:
// ECDSA of any curve, RSA, Ed25519, each ML-DSA set), and picks for each handshake the first
// of the client's signature_algorithms that one of them can sign.
Result<SslCtxPtr> MakeServerContext(const ServerTlsConfig& cfg,
                                    std::span<const CertChain* const> chains);
Result<SslCtxPtr> MakeServerContext(const ServerTlsConfig& cfg, const CertChain& chain);
// ... or with PEM files.
Result<SslCtxPtr> MakeServerContextFromFiles(const ServerTlsConfig& cfg,
                                             std::span<const CertKeyFiles> files);

}  // namespace pqc
