// scenario_networks — a scenario's [networks.NAME] tables: emulated link profiles, and
// networks of several client sites, each an emulated profile of the same file.
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

constexpr std::string_view kNetworkKeys =
    "rtt, jitter, loss, burst_loss (\"P,R[,LOSS_BAD]\"), rate, queue, reorder, seed; or sites "
    "= [\"NAME\", …] alone";

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

}  // namespace

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

std::vector<link::LinkSite> NetworkProfile::LinkSites() const {
  if (!multi_site()) return {{name, link}};
  std::vector<link::LinkSite> out;
  for (const NetworkSite& site : sites) out.push_back({site.name, site.link});
  return out;
}

}  // namespace pqc::scenario
