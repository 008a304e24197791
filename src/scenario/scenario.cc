#include "scenario/scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/split.h"
#include "core/units.h"
#include "link/link_profile.h"
#include "scenario/scenario_parts.h"

namespace pqc::scenario {
namespace {

constexpr std::string_view kTopKeys =
    "title, description, [target], [tls], [load], [trials], "
    "[full], [matrix], [networks.NAME], [builds.NAME], [stop]";

Status ParseSettingsSection(const Where& where, const toml::table& root, std::string_view section,
                            ArmSettings& base) {
  const toml::node* node = root.get(section);
  if (node == nullptr) return {};
  const toml::table* t = node->as_table();
  if (t == nullptr) return where(*node, fmt::format("[{}] must be a table", section));
  for (const auto& [key, value] : *t) {
    if (section == "target" && key.str() == "kind") {
      auto text = value.value_exact<std::string>();
      auto kind = ParseTargetKind(text ? *text : "");
      if (!kind)
        return where(value, "kind must be \"embedded\", \"nginx\", \"haproxy\" or \"external\"");
      base.target = *kind;  // the `target` setting; a matrix or --set may change it per arm
      continue;
    }
    if (Status st = ApplyKey(where, section, key.str(), value, base); !st) {
      if (section == "target" && FindSettingKey(key.str()) == nullptr) {
        return where(value, fmt::format("unknown key '{}' in [target] (valid: kind, {})", key.str(),
                                        SettingKeyNames("target")));
      }
      return st;
    }
  }
  return {};
}

Result<uint32_t> TrialCount(const Where& where, const toml::node& v) {
  auto n = v.value_exact<int64_t>();
  if (!n || *n < 1 || *n > 1000) return where(v, "trials must be an integer from 1 to 1000");
  return static_cast<uint32_t>(*n);
}

Status ParseTrials(const Where& where, const toml::table& root, Scenario& s) {
  const toml::node* node = root.get("trials");
  if (node == nullptr) return {};
  const toml::table* t = node->as_table();
  if (t == nullptr) return where(*node, "[trials] must be a table (count, seed, adjacent)");
  for (const auto& [key, value] : *t) {
    if (key.str() == "count") {
      auto n = TrialCount(where, value);
      if (!n) return n.error();
      s.trials = *n;
    } else if (key.str() == "seed") {
      auto n = value.value_exact<int64_t>();
      if (!n || *n < 0) return where(value, "seed must be a non-negative integer");
      s.seed = static_cast<uint64_t>(*n);
    } else if (key.str() == "adjacent") {
      auto f = value.value_exact<std::string>();
      if (!f || f->empty()) {
        return where(value, "adjacent must be the name of a matrix factor, e.g. \"group\"");
      }
      s.adjacent = *f;
    } else {
      return where(value, fmt::format("unknown key '{}' in [trials] (valid: count, seed, adjacent)",
                                      key.str()));
    }
  }
  return {};
}

Status ParseFull(const Where& where, const toml::table& root, Scenario& s) {
  const toml::node* node = root.get("full");
  if (node == nullptr) return {};
  const toml::table* t = node->as_table();
  if (t == nullptr) return where(*node, "[full] must be a table (duration, warmup, trials)");
  for (const auto& [key, value] : *t) {
    if (key.str() == "trials") {
      auto n = TrialCount(where, value);
      if (!n) return n.error();
      if (s.full) s.trials = *n;
    } else if (key.str() == "duration" || key.str() == "warmup") {
      ArmSettings scratch;  // validated even when --full is not given
      if (Status st = ApplyKey(where, "load", key.str(), value, s.full ? s.base : scratch); !st) {
        return st;
      }
    } else {
      return where(
          value,
          fmt::format("unknown key '{}' in [full] (valid: duration, warmup, trials)", key.str()));
    }
  }
  return {};
}

// CheckTargets: Scenario::targets becomes the kinds the arms may use.
Status CheckTargets(Scenario& s) {
  std::vector<TargetKind>& kinds = s.targets;
  kinds = {s.base.target};
  for (const Factor& f : s.factors) {
    for (const FactorValue& v : f.values) {
      const toml::node* n = v.overrides->get("target");
      if (n == nullptr) continue;
      ArmSettings scratch;
      (void)FindSettingKey("target")->apply(*n, scratch);
      if (std::find(kinds.begin(), kinds.end(), scratch.target) == kinds.end()) {
        kinds.push_back(scratch.target);
      }
    }
  }
  return {};
}

// CheckStop: a stopping study's factors are the matrix's, and its plan is its block budget
// (`trials`, --trials when given, replaces that budget).
// CheckFactorNamed: `name`, given at `path` ("stop.factors"), is a factor of the matrix.
Status CheckFactorNamed(const Where& where, const toml::table& root, std::string_view path,
                        std::string_view what, const std::string& name, const Scenario& s) {
  std::vector<std::string> names;
  for (const Factor& f : s.factors) names.push_back(f.name);
  if (std::find(names.begin(), names.end(), name) != names.end()) return {};
  const std::string valid = names.empty() ? "the scenario has no [matrix]"
                                          : fmt::format("valid: {}", fmt::join(names, ", "));
  const std::string message =
      fmt::format("{}: '{}' is not a factor of the matrix ({})", what, name, valid);
  if (const toml::node* at = root.at_path(path).node(); at != nullptr) return where(*at, message);
  return MakeError(ErrorKind::kConfig, fmt::format("{}: {}", where.file(), message));
}

Status CheckStop(const Where& where, const toml::table& root, uint32_t trials, Scenario& s) {
  if (!s.stop) return {};
  for (const std::string& f : s.stop->factors) {
    if (Status st = CheckFactorNamed(where, root, "stop.factors", "[stop] factors", f, s); !st) {
      return st;
    }
  }
  // The file's [trials] count is a fixed study's size, not a budget: the stop's own applies.
  StoppingRule& rule = s.stop->rule;
  if (trials > 0) rule.max_blocks = std::max<uint64_t>(trials, rule.min_blocks);
  s.trials = static_cast<uint32_t>(rule.max_blocks);
  return {};
}

}  // namespace

std::string ScalarLabel(const toml::node& v) {
  if (auto s = v.value_exact<std::string>()) return *s;
  if (auto i = v.value_exact<int64_t>()) return std::to_string(*i);
  if (auto d = v.value_exact<double>()) return fmt::format("{}", *d);
  if (auto b = v.value_exact<bool>()) return *b ? "true" : "false";
  return {};
}

// ApplyKey: sets one key of `settings`, in `section` ("" = any section, as in matrix tables).
Status ApplyKey(const Where& where, std::string_view section, std::string_view key,
                const toml::node& value, ArmSettings& settings) {
  const SettingKey* k = FindSettingKey(key);
  if (k == nullptr || (!section.empty() && k->section != section)) {
    if (k != nullptr) {
      return where(value, fmt::format("'{}' belongs in [{}], not [{}]", key, k->section, section));
    }
    return where(value, fmt::format("unknown key '{}'{} (valid: {})", key,
                                    section.empty() ? "" : fmt::format(" in [{}]", section),
                                    SettingKeyNames(section)));
  }
  if (Status st = k->apply(value, settings); !st) {
    return where(value, fmt::format("{}: {}", key, st.error().message));
  }
  return {};
}

Result<Scenario> ParseScenarioText(const std::string& text, const std::string& file,
                                   const ParseOptions& options) {
  Where where(file);
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    return MakeError(ErrorKind::kConfig, fmt::format("{}:{}:{}: TOML syntax: {}", file, b.line,
                                                     b.column, e.description()));
  }
  Scenario s;
  s.file = file;
  s.name = std::filesystem::path(file).stem().string();
  s.text = text;
  s.full = options.full;
  for (const auto& [key, value] : root) {
    const std::string k(key.str());
    if (k == "title" || k == "description") {
      auto v = value.value_exact<std::string>();
      if (!v) return where(value, fmt::format("{} must be a string", k));
      (k == "title" ? s.title : s.description) = *v;
    } else if (k != "target" && k != "tls" && k != "load" && k != "trials" && k != "full" &&
               k != "matrix" && k != "networks" && k != "builds" && k != "stop") {
      return where(value, fmt::format("unknown key '{}' (valid: {})", k, kTopKeys));
    }
  }
  for (std::string_view section : {"target", "tls", "load"}) {
    if (Status st = ParseSettingsSection(where, root, section, s.base); !st) return st.error();
  }
  if (Status st = ParseTrials(where, root, s); !st) return st.error();
  if (Status st = ParseFull(where, root, s); !st) return st.error();
  if (Status st = ParseNetworks(where, root, s); !st) return st.error();
  if (Status st = ParseBuilds(where, root, s); !st) return st.error();
  if (Status st = ParseMatrix(where, root, s); !st) return st.error();
  if (Status st = AddBuildFlags(options.builds, s); !st) return st.error();
  for (const std::string& expr : options.only) {
    if (Status st = SelectOnly(expr, s); !st) return st.error();
  }
  for (const std::string& kv : options.overrides) {
    if (Status st = ApplySetOverride(kv, s.base); !st) return st.error();
    s.set_keys.push_back(kv.substr(0, kv.find('=')));
  }
  if (options.trials > 0) s.trials = options.trials;
  if (Status st = ParseStop(where, root, s); !st) return st.error();
  if (options.stop && !s.stop) s.stop = DefaultStop();
  if (Status st = CheckStop(where, root, options.trials, s); !st) return st.error();
  if (!s.adjacent.empty()) {
    if (Status st =
            CheckFactorNamed(where, root, "trials.adjacent", "[trials] adjacent", s.adjacent, s);
        !st) {
      return st.error();
    }
  }
  if (Status st = CheckTargets(s); !st) return st.error();
  if (Status st = CheckNetworksExist(where, root, s); !st) return st.error();
  if (Status st = CheckBuildsExist(where, root, s); !st) return st.error();
  if (s.title.empty()) s.title = s.name;
  return s;
}

Result<Scenario> ParseScenarioFile(const std::string& path, const ParseOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return MakeError(ErrorKind::kIo, fmt::format("cannot read scenario file {} (ls scenarios/ "
                                                 "lists the shipped ones)",
                                                 path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseScenarioText(text.str(), path, options);
}

}  // namespace pqc::scenario
