#include "core/units.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace pqc {
namespace {

struct Unit {
  std::string_view suffix;
  double factor;
};

// Splits "12.5ms" into 12.5 and "ms". The number must be finite and non-negative.
Result<std::pair<double, std::string_view>> SplitNumber(std::string_view text,
                                                        std::string_view what) {
  if (text.empty()) return MakeError(ErrorKind::kUsage, fmt::format("empty {}", what));
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value) || value < 0) {
    return MakeError(
        ErrorKind::kUsage,
        fmt::format("invalid {} '{}': expected a non-negative number first", what, text));
  }
  return std::pair{value,
                   std::string_view(end, static_cast<size_t>(text.data() + text.size() - end))};
}

template <size_t N>
Result<double> Scale(std::string_view text, std::string_view what, const std::array<Unit, N>& units,
                     std::string_view valid, bool bare_allowed) {
  auto split = SplitNumber(text, what);
  if (!split) return split.error();
  auto [value, suffix] = *split;
  if (suffix.empty() && bare_allowed) return value;
  for (const Unit& u : units) {
    if (suffix == u.suffix) return value * u.factor;
  }
  return MakeError(ErrorKind::kUsage,
                   fmt::format("invalid {} '{}': unknown or missing unit '{}' (valid: {})", what,
                               text, suffix, valid));
}

// ToInteger: v rounded to an integer. Not llround: its long long ends at 2^63, and values
// between 2^63 and 2^64 came back as 2^63 (found by fuzz/units_fuzz: "1e19B").
Result<uint64_t> ToInteger(double v, std::string_view text, std::string_view what) {
  const double rounded = std::round(v);
  if (rounded >= 18446744073709551616.0) {  // 2^64: does not fit
    return MakeError(ErrorKind::kUsage, fmt::format("{} '{}' is too large", what, text));
  }
  return static_cast<uint64_t>(rounded);
}

}  // namespace

Result<int64_t> ParseDuration(std::string_view text) {
  static constexpr std::array<Unit, 6> kUnits{
      {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}}};
  auto v = Scale(text, "duration", kUnits, "ns, us, ms, s, m, h — e.g. 250ms, 2s, 5m", false);
  if (!v) return v.error();
  if (*v > 9.2e18) {
    return MakeError(ErrorKind::kUsage, fmt::format("duration '{}' is too large", text));
  }
  return static_cast<int64_t>(std::llround(*v));
}

Result<uint64_t> ParseSize(std::string_view text) {
  static constexpr std::array<Unit, 10> kUnits{{{"B", 1},
                                                {"K", 1024.0},
                                                {"KB", 1024.0},
                                                {"KiB", 1024.0},
                                                {"M", 1048576.0},
                                                {"MB", 1048576.0},
                                                {"MiB", 1048576.0},
                                                {"G", 1073741824.0},
                                                {"GB", 1073741824.0},
                                                {"GiB", 1073741824.0}}};
  auto v = Scale(text, "size", kUnits, "B, K, M, G (binary) — e.g. 100B, 10K, 1M", true);
  if (!v) return v.error();
  if (*v != std::floor(*v)) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("size '{}' is not a whole number of bytes", text));
  }
  return ToInteger(*v, text, "size");
}

Result<uint64_t> ParseBitRate(std::string_view text) {
  static constexpr std::array<Unit, 8> kUnits{{{"bit", 1},
                                               {"kbit", 1e3},
                                               {"mbit", 1e6},
                                               {"gbit", 1e9},
                                               {"bps", 8},
                                               {"kbps", 8e3},
                                               {"mbps", 8e6},
                                               {"gbps", 8e9}}};
  auto v = Scale(text, "bit rate", kUnits,
                 "bit, kbit, mbit, gbit (bits/s) or bps, kbps, mbps, gbps (bytes/s) — e.g. "
                 "100mbit",
                 false);
  if (!v) return v.error();
  if (*v < 1) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("bit rate '{}' must be at least 1 bit/s", text));
  }
  return ToInteger(*v, text, "bit rate");
}

Result<double> ParsePercent(std::string_view text) {
  std::string_view number = text;
  if (!number.empty() && number.back() == '%') number.remove_suffix(1);
  auto split = SplitNumber(number, "percentage");
  if (!split) return split.error();
  if (!split->second.empty() || split->first > 100) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("invalid percentage '{}': expected 0 to 100, e.g. 0.5%", text));
  }
  return split->first / 100.0;
}

Result<double> ParseRate(std::string_view text) {
  static constexpr std::array<Unit, 3> kUnits{{{"/s", 1}, {"/m", 1.0 / 60}, {"/h", 1.0 / 3600}}};
  auto v = Scale(text, "rate", kUnits, "a number per second, or /s, /m, /h — e.g. 300/s", true);
  if (!v) return v.error();
  if (*v <= 0) {
    return MakeError(ErrorKind::kUsage, fmt::format("rate '{}' must be greater than 0", text));
  }
  return *v;
}

std::string FormatSize(uint64_t bytes) {
  if (bytes >= 1048576 && bytes % 1048576 == 0) return fmt::format("{}M", bytes / 1048576);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{}K", bytes / 1024);
  return fmt::format("{}B", bytes);
}

std::string FormatDuration(int64_t ns) {
  if (ns % 1'000'000'000 == 0 && ns != 0) return fmt::format("{}s", ns / 1'000'000'000);
  if (ns % 1'000'000 == 0) return fmt::format("{}ms", ns / 1'000'000);
  if (ns % 1'000 == 0) return fmt::format("{}us", ns / 1'000);
  return fmt::format("{}ns", ns);
}

std::string FormatBitRate(uint64_t bps) {
  if (bps % 1'000'000'000 == 0 && bps != 0) return fmt::format("{}gbit", bps / 1'000'000'000);
  if (bps % 1'000'000 == 0 && bps != 0) return fmt::format("{}mbit", bps / 1'000'000);
  if (bps % 1'000 == 0 && bps != 0) return fmt::format("{}kbit", bps / 1'000);
  return fmt::format("{}bit", bps);
}

std::string FormatMicros(double us) {
  if (std::abs(us) >= 1000) return fmt::format("{:.3f} ms", us / 1000);
  return std::abs(us) >= 1 ? fmt::format("{:.1f} us", us) : fmt::format("{:.3g} us", us);
}

std::string FormatPercent(double fraction) {
  // The fewest decimals that read back to the same fraction, never an exponent: 0.03 is
  // "3%", not the "3.0000000000000004%" that fraction * 100 prints as. (A fraction no decimal
  // reaches exactly, such as 1/3, gets the closest one of 17 decimals.)
  std::string text;
  for (int decimals = 0; decimals <= 17; ++decimals) {
    text = fmt::format("{:.{}f}%", fraction * 100, decimals);
    auto back = ParsePercent(text);
    if (back && *back == fraction) break;
  }
  return text;
}

}  // namespace pqc
