#include "tls/client_record.h"

namespace pqc {

std::string_view ClientOutcomeName(ClientOutcome o) {
  switch (o) {
    case ClientOutcome::kOk:
      return "ok";
    case ClientOutcome::kFailed:
      return "failed";
    case ClientOutcome::kMalformed:
      return "malformed";
    case ClientOutcome::kOversize:
      return "oversize";
  }
  return "failed";
}

std::optional<ClientOutcome> ParseClientOutcome(std::string_view text) {
  for (ClientOutcome o : {ClientOutcome::kOk, ClientOutcome::kFailed, ClientOutcome::kMalformed,
                          ClientOutcome::kOversize}) {
    if (ClientOutcomeName(o) == text) return o;
  }
  return std::nullopt;
}

}  // namespace pqc
