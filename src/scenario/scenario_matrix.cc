// scenario_matrix — a scenario's [matrix]: the factors whose values' product is the arms, each
// value a label and the settings it changes; and `run --only`, which keeps some of a factor's
// values.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/split.h"
#include "core/units.h"
#include "link/link_profile.h"
#include "scenario/scenario_parts.h"

namespace pqc::scenario {
namespace {

Result<FactorValue> ParseFactorValue(const Where& where, const std::string& factor,
                                     const toml::node& v) {
  const bool is_setting = FindSettingKey(factor) != nullptr;
  auto overrides = std::make_shared<toml::table>();
  FactorValue out;
  ArmSettings scratch;  // every override is checked now (at its position in the file)
  auto take = [&](std::string_view key, const toml::node& value) -> Status {
    if (Status st = ApplyKey(where, "", key, value, scratch); !st) return st;
    overrides->insert_or_assign(key, value);  // the copy loses its position, hence the check above
    return {};
  };
  if (const toml::table* t = v.as_table()) {
    const toml::node* label = t->get("value");
    if (label == nullptr || ScalarLabel(*label).empty()) {
      return where(v, fmt::format("a table in matrix.{} needs value = \"label\" (e.g. {{ value = "
                                  "\"reuse\", requests = 10 }})",
                                  factor));
    }
    out.label = ScalarLabel(*label);
    for (const auto& [key, value] : *t) {
      if (key.str() == "value" && !is_setting) continue;
      if (Status st = take(key.str() == "value" ? std::string_view(factor) : key.str(), value);
          !st) {
        return st.error();
      }
    }
  } else {
    out.label = ScalarLabel(v);
    if (out.label.empty())
      return where(v, fmt::format("matrix.{}: values must be scalars or tables", factor));
    if (!is_setting) {
      return where(v, fmt::format("matrix.{} is not a setting (settings: {}); give its values as "
                                  "tables such as {{ value = \"{}\", key_shares = \"X25519\" }}",
                                  factor, SettingKeyNames(), out.label));
    }
    if (Status st = take(factor, v); !st) return st.error();
  }
  out.overrides = std::move(overrides);
  out.location = where.At(v);
  return out;
}

}  // namespace

Status ParseMatrix(const Where& where, const toml::table& root, Scenario& s) {
  const toml::node* node = root.get("matrix");
  if (node == nullptr) return {};
  const toml::table* t = node->as_table();
  if (t == nullptr) return where(*node, "[matrix] must be a table of FACTOR = [values]");
  std::vector<std::pair<toml::source_position, Factor>> found;
  for (const auto& [name, value] : *t) {
    const toml::array* values = value.as_array();
    if (values == nullptr || values->empty()) {
      return where(value, fmt::format("matrix.{} must be a non-empty array of values", name.str()));
    }
    Factor f{std::string(name.str()), {}};
    std::set<std::string> labels;
    for (const toml::node& v : *values) {
      auto fv = ParseFactorValue(where, f.name, v);
      if (!fv) return fv.error();
      if (!labels.insert(fv->label).second) {
        return where(v, fmt::format("matrix.{}: value '{}' given twice", f.name, fv->label));
      }
      f.values.push_back(std::move(*fv));
    }
    found.emplace_back(value.source().begin, std::move(f));
  }
  // toml++ keeps keys sorted; the file's order is what users expect in arm names.
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first.line != b.first.line ? a.first.line < b.first.line
                                        : a.first.column < b.first.column;
  });
  for (auto& [pos, f] : found) s.factors.push_back(std::move(f));
  return {};
}

// SelectOnly: "factor=v1,v2" (run --only) keeps those values of the factor, in the file's
// order. A study is written whole; a user runs part of it (the loopback arms against their
// own server, one group to check a change) without editing the file, and the stored options
// make a resumed run select the same arms.
Status SelectOnly(const std::string& expr, Scenario& s) {
  std::vector<std::string> names;
  for (const Factor& f : s.factors) names.push_back(f.name);
  const std::string factors = names.empty() ? "none: the scenario has no [matrix]"
                                            : fmt::format("{}", fmt::join(names, ", "));
  const size_t eq = expr.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == expr.size()) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--only '{}': expected FACTOR=VALUE[,VALUE…], e.g. --only "
                                 "network=loopback (factors: {})",
                                 expr, factors));
  }
  const std::string name = expr.substr(0, eq);
  auto f = std::find_if(s.factors.begin(), s.factors.end(),
                        [&](const Factor& x) { return x.name == name; });
  if (f == s.factors.end()) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--only {}: '{}' is not a factor of {} (factors: {})", expr, name,
                                 s.file, factors));
  }
  std::vector<std::string> labels;
  for (const FactorValue& v : f->values) labels.push_back(v.label);
  std::set<std::string, std::less<>> wanted;
  for (std::string_view w : Split(std::string_view(expr).substr(eq + 1), ",")) {
    if (std::find(labels.begin(), labels.end(), w) == labels.end()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--only {}: '{}' is not a value of matrix.{} (values: {})", expr,
                                   w, name, fmt::join(labels, ", ")));
    }
    wanted.emplace(w);
  }
  std::erase_if(f->values, [&](const FactorValue& v) { return wanted.count(v.label) == 0; });
  return {};
}

}  // namespace pqc::scenario
