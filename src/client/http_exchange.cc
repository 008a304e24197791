#include "client/http_exchange.h"

#include "client/connection.h"
#include "client/h1_exchange.h"
#include "client/h2_exchange.h"

namespace pqc {

Result<std::unique_ptr<HttpExchange>> MakeExchange(const ConnectionEnv& env,
                                                   ConnectionRecord& record) {
  if (env.options->protocol == Protocol::kH2) {
    auto session = h2::ClientSession::Make();
    if (!session) return session.error();
    return std::unique_ptr<HttpExchange>(new H2Exchange(env, record, std::move(*session)));
  }
  return std::unique_ptr<HttpExchange>(new H1Exchange(env));
}

}  // namespace pqc
