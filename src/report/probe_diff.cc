#include "report/probe_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace pqc::report {
namespace {

constexpr std::string_view kNotRecorded = "not recorded";
constexpr std::string_view kNotLoaded = "not loaded";

void AddFact(ProbeDiff& d, std::string fact, std::string a, std::string b) {
  const bool differs = a != b;
  d.facts.push_back({std::move(fact), {std::move(a), std::move(b)}, differs});
}

std::string ProviderText(const ProviderFacts& p) {
  if (p.buildinfo.empty() || p.buildinfo == p.version) return p.version;
  return fmt::format("{} (build {})", p.version, p.buildinfo);
}

const ProviderFacts* FindProvider(const OpenSslBuildFacts& b, const std::string& name) {
  const auto it = std::find_if(b.providers.begin(), b.providers.end(),
                               [&](const ProviderFacts& p) { return p.name == name; });
  return it == b.providers.end() ? nullptr : &*it;
}

// BuildFacts: the builds' facts in a fixed order, then one row per provider either loads.
void BuildFacts(ProbeDiff& d, const ProbeDocument& a, const ProbeDocument& b) {
  AddFact(d, "version", a.openssl, b.openssl);
  for (const BuildField& field : kBuildFields) {
    auto value = [&field](const ProbeDocument& doc) {
      return doc.build ? (*doc.build).*field.member : std::string(kNotRecorded);
    };
    AddFact(d, std::string(field.label), value(a), value(b));
  }
  std::vector<std::string> names;
  for (const ProbeDocument* doc : {&a, &b}) {
    if (!doc->build) continue;
    for (const ProviderFacts& p : doc->build->providers) {
      if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
    }
  }
  auto provider = [](const ProbeDocument& doc, const std::string& name) {
    if (!doc.build) return std::string(kNotRecorded);
    const ProviderFacts* p = FindProvider(*doc.build, name);
    return p == nullptr ? std::string(kNotLoaded) : ProviderText(*p);
  };
  for (const std::string& name : names) {
    AddFact(d, "provider " + name, provider(a, name), provider(b, name));
  }
}

std::vector<LayerChange> Layers(const ProbeRow& a, const ProbeRow& b) {
  std::vector<LayerChange> out;
  if (a.primitive != b.primitive) out.push_back({ProbeLayer::kPrimitive, a.primitive, b.primitive});
  if (a.x509 && b.x509 && *a.x509 != *b.x509) out.push_back({ProbeLayer::kX509, *a.x509, *b.x509});
  if (a.tls != b.tls) out.push_back({ProbeLayer::kTls, a.tls, b.tls});
  return out;
}

// DiffRows: one kind's rows matched by name; the first build's order, then the second's.
void DiffRows(ProbeDiff& d, const std::string& kind, const std::vector<ProbeRow>& a,
              const std::vector<ProbeRow>& b) {
  std::map<std::string, const ProbeRow*> in_b;
  for (const ProbeRow& r : b) in_b[r.name] = &r;
  for (const ProbeRow& r : a) {
    const auto it = in_b.find(r.name);
    if (it == in_b.end()) {
      d.only_in.push_back({0, kind, r.name});
      continue;
    }
    ++d.common;
    const ProbeRow& other = *it->second;
    std::vector<LayerChange> layers = Layers(r, other);
    if (!layers.empty() || r.error != other.error) {
      d.changes.push_back({kind, r.name, std::move(layers), {r.error, other.error}});
    }
    in_b.erase(it);
  }
  for (const ProbeRow& r : b) {
    if (in_b.count(r.name) != 0) d.only_in.push_back({1, kind, r.name});
  }
}

}  // namespace

std::string_view LayerName(ProbeLayer layer) {
  switch (layer) {
    case ProbeLayer::kPrimitive:
      return "primitive";
    case ProbeLayer::kX509:
      return "x509";
    case ProbeLayer::kTls:
      return "tls";
  }
  return "?";
}

bool ProbeDiff::AnyLayerChanged() const {
  return std::any_of(changes.begin(), changes.end(),
                     [](const AlgorithmChange& c) { return !c.layers.empty(); });
}

ProbeDiff DiffProbes(const ProbeDocument& a, const ProbeDocument& b,
                     std::array<std::string, 2> labels) {
  ProbeDiff d{.labels = std::move(labels)};
  BuildFacts(d, a, b);
  DiffRows(d, "group", a.groups, b.groups);
  DiffRows(d, "signature", a.signatures, b.signatures);
  return d;
}

}  // namespace pqc::report
