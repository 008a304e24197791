// handshake_check — one TLS 1.3 handshake with an arm's client settings, before a run
// measures anything. An external server that the trust store cannot verify, or that refuses
// the arm's groups, would otherwise fail every connection of every trial; one handshake
// says why in a sentence (which trust store, which name, OpenSSL's own reason) and costs
// nothing.
#pragma once

#include "records/load_options.h"
#include "core/clock.h"
#include "core/error.h"

namespace pqc {

// HandshakeOnce: connects to o.target and completes a handshake as a measured connection
// would (same context, SNI and verification), bounded by `timeout`; then closes.
Status HandshakeOnce(const LoadOptions& o, Nanos timeout);

}  // namespace pqc
