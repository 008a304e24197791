// arm_options — one arm's settings turned into what the two sides are started with: the
// load generator's LoadOptions (what to offer, what must be negotiated, the schedule) and
// the target's ServerConfig. One place, so that client and server always agree on an arm.
#pragma once

#include <openssl/x509.h>

#include "client/load_options.h"
#include "net/address.h"
#include "scenario/arm_settings.h"
#include "target/target.h"

namespace pqc::scenario {

// MakeLoadOptions: the client side of the arm. Trust is the caller's (ApplyArmTrust for a run;
// `load` has its own --ca); `seed` varies per trial.
LoadOptions MakeLoadOptions(const ArmSettings& s, const SocketAddress& target, uint64_t seed);

// ApplyArmTrust: how a run's client verifies the arm's server. `anchor` (the root of the chain
// the tool serves) is borrowed and unused for an external arm, which is verified by its `ca`
// or the system's trust store, for the name it is reached by (also its SNI and Host).
void ApplyArmTrust(const ArmSettings& s, X509* anchor, LoadOptions& o);

target::ServerConfig MakeServerConfig(const ArmSettings& s, const std::string& chain_file,
                                      const std::string& key_file);

}  // namespace pqc::scenario
