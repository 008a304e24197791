// html_text.cc — see html_text.h.
#include "report/html_text.h"

#include <fmt/format.h>

#include <cmath>

#include "report/cell_format.h"

namespace pqc::report {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ScriptJson(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  // Outside strings JSON has no '<', '>' or '&', so every one of them is inside a string,
  // where the \u escape means the same character.
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string FormatCount(std::optional<double> count) {
  if (!count) return std::string(kMissing);
  std::string digits = fmt::format("{:.0f}", std::fabs(*count));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return *count < 0 ? "-" + out : out;
}

}  // namespace pqc::report
