// probe — which algorithms this OpenSSL really supports, at three layers, each exercised
// rather than looked up: primitive (keygen + encap/decap or sign/verify), X.509 (issue a
// certificate, parse it back, verify it) and TLS (a real handshake that must negotiate it).
// The original needed three experiments to learn that SLH-DSA stops at the TLS layer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tls/algorithms.h"
#include "tls/openssl_build.h"

namespace pqc {

// Each layer also says which provider implements it: `provider` is the provider of the key
// the primitive layer made (its key manager), `tls_provider` the provider whose TLS capability
// lists the group or signature scheme ("libssl" for the schemes libssl has built in; "" when
// none lists it).
struct GroupProbe {
  const GroupInfo* group;
  bool primitive = false;
  bool tls = false;
  std::string provider;
  std::string tls_provider;
  std::string negotiated;  // what the handshake agreed on
  std::string error;       // first failure's OpenSSL error string; "" if none
};

struct SignatureProbe {
  const SignatureInfo* sig;
  bool primitive = false;
  bool x509 = false;
  bool tls = false;
  std::string provider;
  std::string tls_provider;
  // tls_listed: the TLS layer lists a signature scheme (a codepoint) for it, as `openssl list
  // -tls-signature-algorithms` shows: what the original grep'd for SLH-DSA.
  bool tls_listed = false;
  std::string negotiated;  // the server's CertificateVerify scheme
  std::string error;
};

struct ProbeReport {
  std::string openssl_version;  // "3.5.7"
  OpenSslBuildFacts build;      // how that library was built, its loaded providers
  std::vector<GroupProbe> groups;
  std::vector<SignatureProbe> signatures;
};

GroupProbe ProbeGroup(const GroupInfo& group);
SignatureProbe ProbeSignature(const SignatureInfo& sig);

// RunProbe: every group and signature type of the table (or only the named ones), and the
// build facts, read after the probes so that the providers they loaded are listed.
ProbeReport RunProbe(const std::vector<std::string>& only = {});

// OpenSslVersion: the runtime library's version, "3.5.7".
std::string OpenSslVersion();

}  // namespace pqc
