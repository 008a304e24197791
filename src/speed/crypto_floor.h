// crypto_floor — the public-key cryptography one TLS 1.3 handshake cannot avoid, priced from a
// SpeedTable: the floor a measured handshake's CPU is compared with (what is left above it is
// the TLS stack, the kernel and the tool). A pure model: no measurement happens here.
//
// The model, per handshake (full, or resumed with psk_dhe_ke):
//   client: one keygen per key share it sends (plus one more after a HelloRetryRequest when
//           the negotiated group had no share), then decaps (KEM) or derive (ECDH) for the
//           negotiated group; full handshakes only: the CertificateVerify verify (leaf's
//           type) and, for every certificate but the trust anchor, one verify of its
//           signature with its issuer's type (links i = 0..n-2 are verified with link i+1's
//           type; the root, or a lone self-signed leaf, is trusted, not verified);
//   server: encaps (KEM), or keygen + derive (ECDH), for the negotiated group; full handshakes
//           only: one CertificateVerify sign with the leaf's type.
// Not counted: hashing, HKDF, record encryption, the ticket's encryption (small next to the
// above; they belong to what the floor leaves unexplained).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "speed/speed_table.h"
#include "tls/cert_chain.h"

namespace pqc::speed {

struct FloorTerm {
  bool server = false;  // which side pays
  std::string algorithm;
  SpeedOp op = SpeedOp::kKeygen;
  int count = 1;
  double us = 0;    // count × µs/op
  std::string why;  // "key share", "CertificateVerify", "leaf signed by root", ...
};

struct CryptoFloor {
  double client_us = 0;
  double server_us = 0;
  std::vector<FloorTerm> terms;
};

// PredictHandshakeCrypto: the model above. key_shares empty = one share for `group`. Errors
// name an unknown group or an operation missing from the table.
Result<CryptoFloor> PredictHandshakeCrypto(const SpeedTable& table, std::string_view group,
                                           const std::vector<std::string>& key_shares,
                                           const ChainSpec& chain, bool resumed);

// FloorArm: an arm as `speed --arm` takes it: "GROUP:CHAIN[:resume]", e.g.
// "X25519MLKEM768:ml-dsa-65/ml-dsa-87" (one key share, for GROUP).
struct FloorArm {
  std::string group;
  std::vector<std::string> key_shares;
  ChainSpec chain;
  bool resumed = false;
  std::string text;
};
Result<FloorArm> ParseFloorArm(std::string_view text);

// AlgorithmsFor: the group and signature names an arm's floor needs (to measure only those).
std::vector<std::string> AlgorithmsFor(const FloorArm& arm);

}  // namespace pqc::speed
