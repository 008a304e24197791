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

namespace pqc::scenario {
namespace {

constexpr std::string_view kTopKeys =
    "title, description, [target], [tls], [load], [trials], "
    "[full], [matrix], [networks.NAME]";
constexpr std::string_view kNetworkKeys =
    "rtt, jitter, loss, burst_loss (\"P,R[,LOSS_BAD]\"), rate, queue, reorder, seed; or sites "
    "= [\"NAME\", …] alone";

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
  if (t == nullptr) return where(*node, "[trials] must be a table (count, seed)");
  for (const auto& [key, value] : *t) {
    if (key.str() == "count") {
      auto n = TrialCount(where, value);
      if (!n) return n.error();
      s.trials = *n;
    } else if (key.str() == "seed") {
      auto n = value.value_exact<int64_t>();
      if (!n || *n < 0) return where(value, "seed must be a non-negative integer");
      s.seed = static_cast<uint64_t>(*n);
    } else {
      return where(value,
                   fmt::format("unknown key '{}' in [trials] (valid: count, seed)", key.str()));
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

// ParseSites: `sites = ["near", "far"]`, the names of other emulated profiles of the file
// (checked once every profile is known, by ResolveSites).
Status ParseSites(const Where& where, const std::string& name, const toml::node& v,
                  std::vector<std::pair<std::string, const toml::node*>>& out) {
  const toml::array* a = v.as_array();
  if (a == nullptr || a->size() < 2 || a->size() > link::kMaxSites) {
    return where(v, fmt::format("[networks.{}] sites: an array of 2 to {} network names, e.g. "
                                "sites = [\"near\", \"far\"]",
                                name, link::kMaxSites));
  }
  for (const toml::node& n : *a) {
    auto site = n.value_exact<std::string>();
    if (!site || site->empty())
      return where(n, fmt::format("[networks.{}] sites: names, as "
                                  "strings",
                                  name));
    out.emplace_back(*site, &n);
  }
  return {};
}

Status ParseNetworks(const Where& where, const toml::table& root, Scenario& s) {
  s.networks["loopback"] = NetworkProfile{"loopback", {}, 0, {}, {}};
  const toml::node* node = root.get("networks");
  if (node == nullptr) return {};
  const toml::table* t = node->as_table();
  if (t == nullptr) return where(*node, "[networks] must hold tables: [networks.NAME]");
  // Networks of several sites, resolved once every plain profile is known.
  std::map<std::string, std::vector<std::pair<std::string, const toml::node*>>> multi;
  for (const auto& [name, value] : *t) {
    const toml::table* p = value.as_table();
    if (p == nullptr)
      return where(value,
                   fmt::format("networks.{} must be a table ({})", name.str(), kNetworkKeys));
    if (name.str() == "loopback")
      return where(value, "'loopback' is built in (no emulation); pick another name");
    NetworkProfile profile{std::string(name.str()), {}, 0, {}, {}};
    if (const toml::node* sites = p->get("sites")) {
      if (p->size() != 1) {
        return where(value, fmt::format("[networks.{}]: sites = [...] stands alone (each site's "
                                        "rtt, loss … are its own network's)",
                                        name.str()));
      }
      if (Status st = ParseSites(where, profile.name, *sites, multi[profile.name]); !st) return st;
      continue;
    }
    link::LinkProfileText text;
    const std::map<std::string_view, std::string*> fields = {
        {"rtt", &text.rtt},   {"jitter", &text.jitter},
        {"loss", &text.loss}, {"burst_loss", &text.burst_loss},
        {"rate", &text.rate}, {"queue", &text.queue},
        {"seed", &text.seed}};
    for (const auto& [key, v] : *p) {
      const std::string k(key.str());
      if (k == "reorder") {
        auto b = v.value_exact<bool>();
        if (!b) return where(v, "reorder: true or false");
        text.reorder = *b;
        profile.params[k] = *b ? "true" : "false";
        continue;
      }
      auto f = fields.find(k);
      if (f == fields.end()) {
        return where(v, fmt::format("unknown key '{}' in [networks.{}] (valid: {})", k, name.str(),
                                    kNetworkKeys));
      }
      *f->second = ScalarLabel(v);
      profile.params[k] = *f->second;
    }
    // The emulator's own parser, so that a scenario accepts exactly what `link` accepts.
    auto parsed = link::ParseLinkProfile(text);
    if (!parsed)
      return where(value, fmt::format("[networks.{}]: {}", name.str(), parsed.error().message));
    profile.rtt_ms = static_cast<double>(parsed->rtt) / 1e6;
    profile.link = *parsed;
    s.networks[profile.name] = std::move(profile);
  }
  for (const auto& [name, sites] : multi) {
    NetworkProfile profile{name, {}, std::nan(""), {}, {}};
    std::set<std::string> seen;
    std::string names;
    for (const auto& [site, at] : sites) {
      auto it = s.networks.find(site);
      if (it == s.networks.end() || !it->second.emulated() || multi.count(site) > 0) {
        std::string plain;
        for (const auto& [n, p] : s.networks) {
          if (p.emulated() && !p.multi_site())
            plain += fmt::format("{}{}", plain.empty() ? "" : ", ", n);
        }
        return where(*at, fmt::format("[networks.{}] sites: '{}' is not an emulated network of "
                                      "this file (a site is a [networks.NAME] with rtt, loss …; "
                                      "defined: {})",
                                      name, site, plain.empty() ? "none" : plain));
      }
      if (!seen.insert(site).second) {
        return where(*at, fmt::format("[networks.{}] sites: '{}' given twice", name, site));
      }
      profile.sites.push_back({site, it->second.rtt_ms, it->second.link});
      names += fmt::format("{}{}", names.empty() ? "" : ",", site);
    }
    profile.params["sites"] = names;
    profile.link = profile.sites.front().link;
    s.networks[name] = std::move(profile);
  }
  return {};
}

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

// CheckNetworksExist: every network a base setting or factor names is defined.
Status CheckNetworksExist(const Where& where, const toml::table& root, const Scenario& s) {
  auto known = [&](const std::string& n) { return s.networks.count(n) > 0; };
  std::string names;
  for (const auto& [n, p] : s.networks) names += fmt::format("{}{}", names.empty() ? "" : ", ", n);
  if (!known(s.base.network)) {
    const toml::node* at = root.at_path("load.network").node();
    Error e = at != nullptr ? where(*at, "") : MakeError(ErrorKind::kConfig, where.file() + ": ");
    e.message += fmt::format("network '{}' is not defined (defined: {})", s.base.network, names);
    return e;
  }
  for (const Factor& f : s.factors) {
    for (const FactorValue& v : f.values) {
      const toml::node* n = v.overrides->get("network");
      if (n == nullptr) continue;
      ArmSettings scratch;
      (void)FindSettingKey("network")->apply(*n, scratch);
      if (!known(scratch.network)) {
        return MakeError(ErrorKind::kConfig,
                         fmt::format("{}: network '{}' is not defined (defined: {}; add a "
                                     "[networks.{}] table with rtt, loss, rate …)",
                                     v.location, scratch.network, names, scratch.network));
      }
    }
  }
  return {};
}

// CheckTargets: Scenario::target becomes the kinds the arms may use ("embedded", "embedded,
// nginx").
Status CheckTargets(Scenario& s) {
  std::vector<std::string_view> kinds = {TargetKindName(s.base.target)};
  for (const Factor& f : s.factors) {
    for (const FactorValue& v : f.values) {
      const toml::node* n = v.overrides->get("target");
      if (n == nullptr) continue;
      ArmSettings scratch;
      (void)FindSettingKey("target")->apply(*n, scratch);
      if (std::find(kinds.begin(), kinds.end(), TargetKindName(scratch.target)) == kinds.end()) {
        kinds.push_back(TargetKindName(scratch.target));
      }
    }
  }
  s.target = fmt::format("{}", fmt::join(kinds, ", "));
  return {};
}

// ApplySetOverride: "key=value" from the command line (the value read as ApplyText reads it).
Status ApplySetOverride(const std::string& kv, ArmSettings& base) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) {
    return MakeError(ErrorKind::kUsage, fmt::format("--set '{}': expected KEY=VALUE, e.g. "
                                                    "--set duration=5s",
                                                    kv));
  }
  const std::string key = kv.substr(0, eq);
  const SettingKey* k = FindSettingKey(key);
  if (k == nullptr) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--set: unknown key '{}' (valid: {})", key, SettingKeyNames()));
  }
  if (Status st = ApplyText(*k, std::string_view(kv).substr(eq + 1), base); !st) {
    return MakeError(ErrorKind::kUsage, fmt::format("--set {}: {}", kv, st.error().message));
  }
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

}  // namespace

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
               k != "matrix" && k != "networks") {
      return where(value, fmt::format("unknown key '{}' (valid: {})", k, kTopKeys));
    }
  }
  for (std::string_view section : {"target", "tls", "load"}) {
    if (Status st = ParseSettingsSection(where, root, section, s.base); !st) return st.error();
  }
  if (Status st = ParseTrials(where, root, s); !st) return st.error();
  if (Status st = ParseFull(where, root, s); !st) return st.error();
  if (Status st = ParseNetworks(where, root, s); !st) return st.error();
  if (Status st = ParseMatrix(where, root, s); !st) return st.error();
  for (const std::string& expr : options.only) {
    if (Status st = SelectOnly(expr, s); !st) return st.error();
  }
  for (const std::string& kv : options.overrides) {
    if (Status st = ApplySetOverride(kv, s.base); !st) return st.error();
    s.set_keys.push_back(kv.substr(0, kv.find('=')));
  }
  if (options.trials > 0) s.trials = options.trials;
  if (Status st = CheckTargets(s); !st) return st.error();
  if (Status st = CheckNetworksExist(where, root, s); !st) return st.error();
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

std::vector<link::LinkSite> NetworkProfile::LinkSites() const {
  if (!multi_site()) return {{name, link}};
  std::vector<link::LinkSite> out;
  for (const NetworkSite& site : sites) out.push_back({site.name, site.link});
  return out;
}

}  // namespace pqc::scenario
