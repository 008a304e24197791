// arm_flags — the arm's setting keys that have a `load` flag (SettingKey::load_flag), bound to
// a CLI11 app from the one table, so that `load --help` and the scenario keys cannot disagree.
// Each value is checked by the key's own parser as a CLI11 validator (a bad value gets the
// usage message) and applied to an ArmSettings after parsing.
#pragma once

#include <CLI/CLI.hpp>
#include <deque>
#include <string>
#include <utility>

#include "scenario/arm_settings.h"

namespace pqc::cli {

class ArmFlags {
 public:
  // Bind: every key with a load flag, its default shown as the scenario's default.
  void Bind(CLI::App& app);
  // Given: whether the flag of `key` was on the command line.
  bool Given(std::string_view key) const;
  // ApplyTo: the given flags' values, parsed by their keys (in table order).
  Status ApplyTo(scenario::ArmSettings& settings) const;

 private:
  struct Bound {
    const scenario::SettingKey* key;
    CLI::Option* option;
    std::string text;
  };
  std::deque<Bound> bound_;  // a deque: CLI11 holds references to each `text`
};

}  // namespace pqc::cli
