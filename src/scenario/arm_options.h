// arm_options — one arm's settings turned into what the two sides are started with: the
// load generator's LoadOptions (what to offer, what must be negotiated, the schedule) and
// the target's ServerConfig. One place, so that client and server always agree on an arm.
#pragma once

#include <openssl/x509.h>

#include "records/load_options.h"
#include "net/address.h"
#include "scenario/arm_settings.h"
#include "target/target.h"

namespace pqc::scenario {

// MakeLoadOptions: the client side of the arm. Trust is the caller's (ApplyArmTrust for a run;
// `load` has its own --ca); `seed` varies per trial.
LoadOptions MakeLoadOptions(const ArmSettings& s, const SocketAddress& target, uint64_t seed);

// ApplyArmTrust: how a run's client verifies the arm's server. `anchors` (the roots of the
// chains the tool serves) are borrowed and unused for an external arm, which is verified by
// its `ca` or the system's trust store, for the name it is reached by (also its SNI and Host).
void ApplyArmTrust(const ArmSettings& s, std::vector<X509*> anchors, LoadOptions& o);

// MakeServerConfig: the server side of the arm, with the files of ServedChains(s) in order.
target::ServerConfig MakeServerConfig(const ArmSettings& s, std::vector<target::ServerCert> certs);

}  // namespace pqc::scenario
