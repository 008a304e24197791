#include "client/mode_spec.h"

#include <fmt/format.h>

#include <charconv>

#include "core/split.h"

namespace pqc {
namespace {

Result<ConnMode> ModeByName(std::string_view name, std::string_view context) {
  if (name == "fresh") return ConnMode::kFresh;
  if (name == "reuse") return ConnMode::kReuse;
  if (name == "resume") return ConnMode::kResume;
  if (name == "early") return ConnMode::kEarly;
  return MakeError(ErrorKind::kUsage,
                   fmt::format("{}: unknown mode '{}' (valid: fresh, reuse, "
                               "resume, early{})",
                               context, name, context == "--mode" ? ", mix" : ""));
}

}  // namespace

Result<std::vector<MixWeight>> ParseMix(const std::string& text, std::string_view context) {
  std::vector<MixWeight> out;
  for (std::string_view item : Split(text, ",")) {
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("{} '{}': '{}' needs MODE:WEIGHT, e.g. resume:80,fresh:20",
                                   context, text, item));
    }
    auto mode = ModeByName(item.substr(0, colon), context);
    if (!mode) return mode.error();
    std::string_view w = item.substr(colon + 1);
    double weight = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), weight);
    if (ec != std::errc() || p != w.data() + w.size() || !(weight > 0)) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("{} '{}': weight '{}' must be a number > 0", context, text, w));
    }
    for (const MixWeight& m : out) {
      if (m.mode == *mode) {
        return MakeError(ErrorKind::kUsage, fmt::format("{} '{}': mode {} given twice", context,
                                                        text, ConnModeName(*mode)));
      }
    }
    out.push_back({*mode, weight});
  }
  return out;
}

Result<std::vector<MixWeight>> ParseModes(const std::string& mode, const std::string& mix_text) {
  if (mode == "mix") {
    if (mix_text.empty()) {
      return MakeError(ErrorKind::kUsage, "--mode mix needs --mix, e.g. --mix resume:80,fresh:20");
    }
    return ParseMix(mix_text);
  }
  if (!mix_text.empty()) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--mix is only used with --mode mix (not --mode {})", mode));
  }
  auto m = ModeByName(mode, "--mode");
  if (!m) return m.error();
  return std::vector<MixWeight>{{*m, 1.0}};
}

}  // namespace pqc
