#include "server/server_options.h"

namespace pqc {

SocketAddress DefaultServerAddress() {
  return LoopbackAddress(8443);
}

}  // namespace pqc
