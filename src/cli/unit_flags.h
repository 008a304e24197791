// unit_flags — CLI11 options whose values are durations or sizes, parsed by core/units'
// parsers as validators (a bad value gets CLI11's usage message, naming the flag) into typed
// values, so no subcommand carries a duration as a string past its flags. The default shown
// in --help is the value formatted by the function that round-trips with the parser.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"

namespace pqc::cli {

// kSecond: a duration flag's defaults and bounds are written in it ("10 * kSecond").
inline constexpr Nanos kSecond = 1'000'000'000;

// AddDuration: a duration in (0, max] ("30s", "250ms"); `out` keeps its value when not given.
CLI::Option* AddDuration(CLI::App& app, const std::string& name, Nanos& out,
                         const std::string& help, Nanos max);

// AddSizeList: comma-separated sizes ("100B,1K,10K"), each from 1B to `max`.
CLI::Option* AddSizeList(CLI::App& app, const std::string& name, std::vector<uint64_t>& out,
                         const std::string& help, uint64_t max);

}  // namespace pqc::cli
