// connection_factory — the one place that knows every kind of connection: the worker asks it
// for a connection of the arm's protocol, so that the base class (connection.h) knows none of
// the kinds that derive from it.
#pragma once

#include <memory>

#include "client/connection.h"

namespace pqc {

// MakeConnection: a connection of the options' protocol (h1 and h2: TLS over TCP, h3: QUIC),
// not yet started.
std::unique_ptr<Connection> MakeConnection(ConnectionEnv& env, ConnectionRecord record);

}  // namespace pqc
