#include "server/server_options.h"

#include <netinet/in.h>

namespace pqc {

SocketAddress DefaultServerAddress() {
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(8443);
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return AddressFromSockaddr(reinterpret_cast<const sockaddr*>(&in), sizeof in);
}

}  // namespace pqc
