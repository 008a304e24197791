#include "client/connection_factory.h"

#include "client/quic_connection.h"
#include "client/tcp_connection.h"

namespace pqc {

std::unique_ptr<Connection> MakeConnection(ConnectionEnv& env, ConnectionRecord record) {
  if (OverQuic(env.options->protocol)) {
    return std::make_unique<QuicConnection>(env, std::move(record));
  }
  return std::make_unique<TcpConnection>(env, std::move(record));
}

}  // namespace pqc
