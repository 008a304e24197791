// cell_format — how every table of the report, text or HTML, writes a number that may be
// missing: a fixed number of decimals, and one dash (–) for "no value", the same in all.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pqc::report {

inline constexpr std::string_view kMissing = "–";

// Fixed: `v` with `digits` decimals, or kMissing.
std::string Fixed(std::optional<double> v, int digits);
// Ms: microseconds as milliseconds with microsecond precision ("0.890"), or kMissing.
std::string Ms(std::optional<double> us);

}  // namespace pqc::report
