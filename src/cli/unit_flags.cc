#include "cli/unit_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/split.h"
#include "core/units.h"

namespace pqc::cli {

CLI::Option* AddDuration(CLI::App& app, const std::string& name, Nanos& out,
                         const std::string& help, Nanos max) {
  CLI::Validator check(
      [max](std::string& text) -> std::string {
        auto d = ParseDuration(text);
        if (!d) return d.error().message;
        if (*d <= 0 || *d > max) {
          return fmt::format("'{}' must be above 0 and at most {}", text, FormatDuration(max));
        }
        return {};
      },
      "DURATION");
  auto* option = app.add_option_function<std::string>(
      name, [&out](const std::string& text) { out = ParseDuration(text).value(); }, help);
  option->check(check)->type_name("DURATION");
  if (out > 0) option->default_str(FormatDuration(out));
  return option;
}

CLI::Option* AddSizeList(CLI::App& app, const std::string& name, std::vector<uint64_t>& out,
                         const std::string& help, uint64_t max) {
  CLI::Validator check(
      [max](std::string& text) -> std::string {
        for (std::string_view item : Split(text, ",")) {
          auto n = ParseSize(item);
          if (!n) return n.error().message;
          if (*n == 0 || *n > max) {
            return fmt::format("'{}' must be from 1B to {}", item, FormatSize(max));
          }
        }
        return {};
      },
      "SIZES");
  auto* option = app.add_option_function<std::string>(
      name,
      [&out](const std::string& text) {
        out.clear();
        for (std::string_view item : Split(text, ",")) out.push_back(ParseSize(item).value());
      },
      help);
  std::vector<std::string> shown;
  for (uint64_t n : out) shown.push_back(FormatSize(n));
  option->check(check)->type_name("SIZES")->default_str(fmt::format("{}", fmt::join(shown, ",")));
  return option;
}

}  // namespace pqc::cli
