// summary.cc — see summary.h.
#include "report/summary.h"

#include <fmt/format.h>

namespace pqc::report {

std::string_view ArmOutcomeName(ArmOutcome o) {
  switch (o) {
    case ArmOutcome::kOk:
      return "ok";
    case ArmOutcome::kInvalid:
      return "invalid";
    case ArmOutcome::kFailed:
      return "failed";
  }
  return "ok";
}

std::optional<ArmOutcome> ParseArmOutcome(std::string_view text) {
  for (ArmOutcome o : {ArmOutcome::kOk, ArmOutcome::kInvalid, ArmOutcome::kFailed}) {
    if (text == ArmOutcomeName(o)) return o;
  }
  return std::nullopt;
}

std::string ArmSummary::Name() const {
  return label.empty() ? fmt::format("arm {}", id) : label;
}

std::string ArmSummary::FactorText(std::string_view key, std::string_view fallback) const {
  auto it = factors.find(key);
  if (it == factors.end() || it->is_null()) return std::string(fallback);
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number() || it->is_boolean()) return it->dump();
  return std::string(fallback);
}

}  // namespace pqc::report
