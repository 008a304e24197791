#include "report/cell_format.h"

#include <fmt/format.h>

namespace pqc::report {

std::string Fixed(std::optional<double> v, int digits) {
  return v ? fmt::format("{:.{}f}", *v, digits) : std::string(kMissing);
}

std::string Ms(std::optional<double> us) {
  return Fixed(us ? std::optional<double>(*us / 1000.0) : std::nullopt, 3);
}

}  // namespace pqc::report
