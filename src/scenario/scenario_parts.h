// scenario_parts — the scenario reader's pieces, one file each: where a node is (every
// message names its file:line:col) and one setting key applied (scenario.cc), the [networks]
// profiles (scenario_networks.cc), the [matrix] and `--only` (scenario_matrix.cc).
// pqc: internal
#pragma once

#include <fmt/format.h>
#include <toml++/toml.h>

#include <string>
#include <string_view>

#include "core/error.h"
#include "scenario/scenario.h"

namespace pqc::scenario {

// Where: "file:line:col" of a node, the prefix of every message about it.
class Where {
 public:
  std::string At(const toml::node& node) const {
    const auto& b = node.source().begin;
    return fmt::format("{}:{}:{}", file_, b.line, b.column);
  }
  explicit Where(std::string file) : file_(std::move(file)) {}
  Error operator()(const toml::node& node, std::string_view what) const {
    const auto& b = node.source().begin;
    return MakeError(ErrorKind::kConfig,
                     fmt::format("{}:{}:{}: {}", file_, b.line, b.column, what));
  }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// ScalarLabel: a scalar's text as a factor value's label ("" for anything else).
std::string ScalarLabel(const toml::node& v);

// ApplyKey: sets one key of `settings`, in `section` ("" = any section, as in matrix tables).
Status ApplyKey(const Where& where, std::string_view section, std::string_view key,
                const toml::node& value, ArmSettings& settings);

// ParseNetworks: [networks.NAME] into Scenario::networks ("loopback" always).
Status ParseNetworks(const Where& where, const toml::table& root, Scenario& s);
// CheckNetworksExist: every network a base setting or factor names is defined.
Status CheckNetworksExist(const Where& where, const toml::table& root, const Scenario& s);

// ParseMatrix: [matrix] into Scenario::factors, every value's settings checked.
Status ParseMatrix(const Where& where, const toml::table& root, Scenario& s);
// SelectOnly: "factor=v1,v2" (run --only) keeps those values of the factor, in the file's
// order. A study is written whole; a user runs part of it (the loopback arms against their
// own server, one group to check a change) without editing the file, and the stored options
// make a resumed run select the same arms.
Status SelectOnly(const std::string& expr, Scenario& s);

// ParseBuilds: [builds.NAME] into Scenario::builds (builds.h).
Status ParseBuilds(const Where& where, const toml::table& root, Scenario& s);
// AddBuildFlags: run --build NAME=PATH… as [builds.NAME] tables and the factor
// build = [NAME, …] (refused when the file has a build factor of its own).
Status AddBuildFlags(const std::vector<std::string>& flags, Scenario& s);
// CheckBuildsExist: every build a base setting or factor names is "this" or defined.
Status CheckBuildsExist(const Where& where, const toml::table& root, const Scenario& s);

// ParseStop: the [stop] section into Scenario::stop (stop_spec.h); absent, it stays unset.
Status ParseStop(const Where& where, const toml::table& root, Scenario& s);

}  // namespace pqc::scenario
