// load_flags — turns `load`'s command-line text into LoadOptions, validating every value
// with an error that names the flag and what would be valid. Separate from load.cc so that
// `run` (scenarios) can reuse the same parsing of modes and mixes.
#pragma once

#include <string>
#include <vector>

#include "client/load_options.h"
#include "core/error.h"

namespace pqc::cli {

// ParseMix: "resume:80,fresh:20" → weights (modes fresh|reuse|resume; weights > 0).
Result<std::vector<MixWeight>> ParseMix(const std::string& text);

// ParseMode: fresh|reuse|resume → one-entry mix; "mix" needs mix_text.
Result<std::vector<MixWeight>> ParseModes(const std::string& mode, const std::string& mix_text);

}  // namespace pqc::cli
