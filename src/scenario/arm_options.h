// arm_options — one arm's settings turned into what the two sides are started with: the
// load generator's LoadOptions (what to offer, what must be negotiated, the schedule) and
// the target's ServerConfig. One place, so that client and server always agree on an arm.
#pragma once

#include <openssl/x509.h>

#include "client/load_options.h"
#include "core/error.h"
#include "net/address.h"
#include "scenario/arm_settings.h"
#include "target/target.h"

namespace pqc::scenario {

// kDefaultServerGroups: the server's preference when the arm does not set server_groups —
// every group, hybrids first, so that the client's offer alone decides the arm's group
// without a HelloRetryRequest (which 08-hello-retry asks for explicitly).
inline constexpr const char* kDefaultServerGroups =
    "X25519MLKEM768:X25519:SecP256r1MLKEM768:secp256r1:SecP384r1MLKEM1024:MLKEM768:MLKEM512:"
    "MLKEM1024";

// MakeLoadOptions: `anchor` (the root of the chain the tool serves) is borrowed and unused for
// an external arm, which is verified by its `ca` or the system's trust store; `seed` varies
// per trial.
Result<LoadOptions> MakeLoadOptions(const ArmSettings& s, const SocketAddress& target, X509* anchor,
                                    uint64_t seed);

target::ServerConfig MakeServerConfig(const ArmSettings& s, const std::string& chain_file,
                                      const std::string& key_file);

}  // namespace pqc::scenario
