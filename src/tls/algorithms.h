// algorithms — the one table of the key-exchange groups and signature types the tool knows,
// with the names used everywhere (docs/design.md, "Names") mapped to OpenSSL's. Every front end
// (CLI, scenario files, probe, certs) resolves names here, so an unknown name gets the same
// error, with the valid names and the nearest one, wherever it is typed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace pqc {

enum class GroupFamily { kClassical, kHybrid, kPostQuantum };

struct GroupInfo {
  std::string_view name;  // OpenSSL TLS group name, e.g. "X25519MLKEM768"
  GroupFamily family;
  std::string_view evp_name;  // EVP key type for the primitive layer
  std::string_view ec_curve;  // for "EC" key types, the curve; else empty
  bool is_kem;                // encapsulate/decapsulate (else ECDH key agreement)
  uint16_t codepoint;         // IANA NamedGroup
};

enum class SignatureFamily { kEcdsa, kRsa, kEdDsa, kMlDsa, kSlhDsa };

struct SignatureInfo {
  std::string_view name;  // our name, e.g. "ml-dsa-65"
  SignatureFamily family;
  std::string_view key_type;    // EVP key type, e.g. "ML-DSA-65", "EC", "RSA"
  std::string_view ec_curve;    // "P-256" for ecdsa-p256
  unsigned rsa_bits;            // for RSA
  std::string_view digest;      // X.509 signing digest; empty for one-shot schemes
  std::string_view tls_sigalg;  // TLS 1.3 SignatureScheme name; empty if none exists
  uint16_t codepoint;           // IANA SignatureScheme; 0 if none
};

std::span<const GroupInfo> AllGroups();
std::span<const SignatureInfo> AllSignatures();

// FindGroup / FindSignature: exact lookup; on failure the error lists the valid names and
// suggests the nearest (case-insensitive edit distance).
Result<const GroupInfo*> FindGroup(std::string_view name);
Result<const SignatureInfo*> FindSignature(std::string_view name);

// kDefaultServerGroups: a server's preference when none is given (serve, and a run's arm
// without server_groups) — every group, hybrids first, so that the client's offer alone decides
// the group without a HelloRetryRequest (which 08-hello-retry asks for explicitly).
inline constexpr const char* kDefaultServerGroups =
    "X25519MLKEM768:X25519:SecP256r1MLKEM768:secp256r1:SecP384r1MLKEM1024:MLKEM768:MLKEM512:"
    "MLKEM1024";

// TolerantGroupList: the list with each group marked optional ('?'), so that a provider that
// lacks some of them (the FIPS provider has no X25519) leaves the rest: a server's default
// preference under providers the user chose.
std::string TolerantGroupList(std::string_view list);

// ParseGroupList: "X25519MLKEM768:X25519" (':' or ',' separated) → validated names.
Result<std::vector<std::string>> ParseGroupList(std::string_view list);

// SignatureSchemeName: TLS SignatureScheme codepoint → OpenSSL's name ("mldsa65",
// "ecdsa_secp256r1_sha256"); "0x1234" for codepoints the table does not know.
std::string SignatureSchemeName(uint16_t codepoint);

// CanonicalGroupName: OpenSSL reports some groups in lower case ("x25519"); our table's
// spelling, so that negotiated names compare equal to configured ones.
std::string CanonicalGroupName(std::string_view openssl_name);

// GroupName: IANA NamedGroup codepoint → name, or "0x1234".
std::string GroupName(uint16_t codepoint);

std::string_view FamilyName(GroupFamily family);
std::string_view FamilyName(SignatureFamily family);

// NearestName: the candidate closest to `typed` (for "did you mean"), if reasonably close.
std::optional<std::string_view> NearestName(std::string_view typed,
                                            const std::vector<std::string_view>& candidates);

}  // namespace pqc
