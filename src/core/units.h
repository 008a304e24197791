// units — parsing of the human quantities used on the command line and in scenario files:
// durations ("250us", "2s", "1.5m"), byte sizes ("100B", "10K", "1M"; binary, K = 1024),
// link rates ("100mbit"), event rates ("300/s") and percentages ("0.5%"). One place, fuzzed, so
// every front end reports the same errors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"

namespace pqc {

// ParseDuration: a number with unit ns, us, ms, s, m or h; a bare number is refused
// (ambiguous). Returns nanoseconds.
Result<int64_t> ParseDuration(std::string_view text);

// ParseSize: bytes with optional suffix B, K/KB/KiB, M/MB/MiB, G/GB/GiB (all binary: 1K = 1024).
Result<uint64_t> ParseSize(std::string_view text);

// ParseBitRate: "100mbit", "1gbit", "500kbit", "64bit" (decimal SI, per second).
// Returns bits per second.
Result<uint64_t> ParseBitRate(std::string_view text);

// ParsePercent: "0.5%" or "0.5" (both mean half a percent). Returns a fraction in [0, 1].
Result<double> ParsePercent(std::string_view text);

// ParseRate: events per second, "300" or "300/s" or "18000/m". Must be > 0.
Result<double> ParseRate(std::string_view text);

// The formatters: the canonical short form of each quantity, which its parser reads back to
// the same value (units_test checks parse(format(x)) == x). One formatter per quantity, used
// by every output (arm names, stored settings, link descriptions).
// FormatSize: "100B", "10K", "1M" (used in arm names).
std::string FormatSize(uint64_t bytes);
// FormatDuration: the largest unit that keeps the value whole: "2s", "250ms", "1500ns", "0ms".
std::string FormatDuration(int64_t ns);
// FormatBitRate: "1gbit", "100mbit", "64bit".
std::string FormatBitRate(uint64_t bps);
// FormatPercent: a fraction as a percentage, "0.5%" (shortest text that reads back the same).
std::string FormatPercent(double fraction);
// FormatMicros: a measured time (µs) for reading, not parsing back: "1.234 ms" from 1 ms up,
// "48.1 us" from 1 µs, "0.25 us" below (the study's answers and their precisions).
std::string FormatMicros(double us);

}  // namespace pqc
