// summary_fields.cc — see summary_fields.h.
#include "report/summary_fields.h"

#include <cmath>

namespace pqc::report {

const nlohmann::json* Field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::optional<double> Number(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json* value = Field(object, key);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  double number = value->get<double>();
  if (!std::isfinite(number)) return std::nullopt;
  return number;
}

std::string Text(const nlohmann::json& object, std::string_view key, std::string_view fallback) {
  const nlohmann::json* value = Field(object, key);
  if (value == nullptr || value->is_null()) return std::string(fallback);
  if (value->is_string()) return value->get<std::string>();
  if (value->is_number() || value->is_boolean()) return value->dump();
  return std::string(fallback);
}

std::vector<const nlohmann::json*> Items(const nlohmann::json& object, std::string_view key) {
  std::vector<const nlohmann::json*> items;
  const nlohmann::json* array = Field(object, key);
  if (array == nullptr || !array->is_array()) return items;
  for (const nlohmann::json& item : *array) items.push_back(&item);
  return items;
}

std::string ArmName(const nlohmann::json& arm) {
  std::string label = Text(arm, "label");
  if (!label.empty()) return label;
  return "arm " + Text(arm, "id", "?");
}

}  // namespace pqc::report
