#include "records/record.h"

namespace pqc {

std::string_view ConnModeName(ConnMode mode) {
  switch (mode) {
    case ConnMode::kFresh:
      return "fresh";
    case ConnMode::kReuse:
      return "reuse";
    case ConnMode::kResume:
      return "resume";
    case ConnMode::kEarly:
      return "early";
  }
  return "?";
}

std::string_view EarlyDataName(EarlyData early) {
  switch (early) {
    case EarlyData::kNone:
      return "none";
    case EarlyData::kAccepted:
      return "accepted";
    case EarlyData::kRejected:
      return "rejected";
  }
  return "?";
}

std::string_view ErrorClassName(ErrorClass error) {
  switch (error) {
    case ErrorClass::kNone:
      return "none";
    case ErrorClass::kRefused:
      return "refused";
    case ErrorClass::kConnect:
      return "connect";
    case ErrorClass::kReset:
      return "reset";
    case ErrorClass::kTimeout:
      return "timeout";
    case ErrorClass::kTlsAlert:
      return "tls-alert";
    case ErrorClass::kTls:
      return "tls";
    case ErrorClass::kHttp:
      return "http";
    case ErrorClass::kClosed:
      return "closed";
  }
  return "?";
}

}  // namespace pqc
