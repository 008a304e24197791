// mode_spec — parses a connection mode ("fresh", "reuse", "resume") or a weighted mix
// ("resume:80,fresh:20") with errors that name where the text came from (a flag or a scenario
// key) and what would be valid. Shared by `load` (flags) and `run` (scenario files).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "records/load_options.h"
#include "core/error.h"

namespace pqc {

// ParseMix: "resume:80,fresh:20" → weights (modes fresh|reuse|resume; weights > 0).
Result<std::vector<MixWeight>> ParseMix(const std::string& text,
                                        std::string_view context = "--mix");

// ParseMode: fresh|reuse|resume → one-entry mix; "mix" needs mix_text.
Result<std::vector<MixWeight>> ParseModes(const std::string& mode, const std::string& mix_text);

}  // namespace pqc
