#include "cli/arm_flags.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace pqc::cli {
namespace {

std::string DefaultText(const scenario::SettingKey& key) {
  const nlohmann::json v = key.echo(scenario::ArmSettings{});
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

void ArmFlags::Bind(CLI::App& app) {
  for (const scenario::SettingKey& key : scenario::SettingKeys()) {
    if (key.load_flag.empty()) continue;
    Bound& b = bound_.emplace_back(Bound{&key, nullptr, {}});
    const std::string name(key.load_flag);
    const std::string help = fmt::format("{} (scenario key {})", key.help, key.name);
    if (key.boolean) {
      b.option = app.add_flag_callback(
          name, [&b] { b.text = "true"; }, help);
      continue;
    }
    CLI::Validator check(
        [&key](std::string& text) -> std::string {
          scenario::ArmSettings scratch;
          Status st = scenario::ApplyText(key, text, scratch);
          return st ? std::string() : st.error().message;
        },
        "", std::string(key.name));
    b.option = app.add_option(name, b.text, help)->default_str(DefaultText(key))->check(check);
  }
}

bool ArmFlags::Given(std::string_view key) const {
  for (const Bound& b : bound_) {
    if (b.key->name == key) return b.option->count() > 0;
  }
  return false;
}

Status ArmFlags::ApplyTo(scenario::ArmSettings& settings) const {
  for (const Bound& b : bound_) {
    if (b.option->count() == 0) continue;
    if (Status st = scenario::ApplyText(*b.key, b.text, settings); !st) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("{} {}: {}", b.option->get_name(), b.text, st.error().message));
    }
  }
  return {};
}

}  // namespace pqc::cli
