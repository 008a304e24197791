#include "report/probe_doc.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>

namespace pqc::report {
namespace {

using nlohmann::ordered_json;

constexpr std::string_view kProbeSchemaName = "pqc-bench/probe/1";

// BadField: a field that is missing or has the wrong type; the message starts with its path.
class BadField : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Field: a JSON value and its path in the document, so that every failure names where it is.
struct Field {
  const ordered_json& value;
  std::string path;

  [[noreturn]] void Fail(std::string_view problem) const {
    throw BadField(fmt::format("{}: {}", path.empty() ? "the document" : path, problem));
  }
  [[noreturn]] void Expected(std::string_view what) const {
    Fail(fmt::format("expected {}, got {}", what, value.type_name()));
  }
  const ordered_json* Find(std::string_view key) const {
    if (!value.is_object()) Expected("an object");
    const auto it = value.find(key);
    return it == value.end() ? nullptr : &*it;
  }
  Field Member(std::string_view key) const {
    const ordered_json* v = Find(key);
    if (v == nullptr) Fail(fmt::format("missing \"{}\"", key));
    return {*v, path.empty() ? std::string(key) : fmt::format("{}.{}", path, key)};
  }
  std::vector<Field> Items() const {
    if (!value.is_array()) Expected("an array");
    std::vector<Field> items;
    for (size_t i = 0; i < value.size(); ++i) {
      items.push_back({value[i], fmt::format("{}[{}]", path, i)});
    }
    return items;
  }
  bool Bool() const {
    if (!value.is_boolean()) Expected("true or false");
    return value.get<bool>();
  }
  std::string String() const {
    if (!value.is_string()) Expected("a string");
    return value.get<std::string>();
  }
  // StringOrNull: the probe writes a missing reason as null.
  std::string StringOrNull() const { return value.is_null() ? std::string() : String(); }
};

OpenSslBuildFacts ReadBuild(const Field& f) {
  OpenSslBuildFacts b;
  for (const BuildField& field : kBuildFields) b.*field.member = f.Member(field.key).String();
  for (const Field& p : f.Member("providers").Items()) {
    b.providers.push_back({.name = p.Member("name").String(),
                           .version = p.Member("version").String(),
                           .buildinfo = p.Member("buildinfo").String()});
  }
  return b;
}

// ReadRows: a groups or signatures array; names must be unique, since a comparison matches
// rows by name.
std::vector<ProbeRow> ReadRows(const Field& f, bool has_x509) {
  std::vector<ProbeRow> rows;
  std::set<std::string> seen;
  for (const Field& r : f.Items()) {
    ProbeRow row{.name = r.Member("name").String(),
                 .family = r.Member("family").String(),
                 .primitive = r.Member("primitive").Bool(),
                 .tls = r.Member("tls").Bool(),
                 .negotiated = r.Member("negotiated").String(),
                 .error = r.Member("error").StringOrNull()};
    if (has_x509) row.x509 = r.Member("x509").Bool();
    // Written since the providers were recorded; older documents leave them unknown.
    if (r.Find("provider") != nullptr) row.provider = r.Member("provider").String();
    if (r.Find("tls_provider") != nullptr) row.tls_provider = r.Member("tls_provider").String();
    if (has_x509 && r.Find("tls_listed") != nullptr) row.tls_listed = r.Member("tls_listed").Bool();
    if (row.name.empty()) r.Member("name").Fail("an empty name");
    if (!seen.insert(row.name).second) {
      r.Member("name").Fail(fmt::format("\"{}\" appears twice", row.name));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

ProbeDocument ReadDocument(const Field& root) {
  ProbeDocument doc{.schema = 0};
  if (root.Find("schema") != nullptr) {
    const Field schema = root.Member("schema");
    if (schema.String() != kProbeSchemaName) {
      schema.Fail(fmt::format("\"{}\" is not a probe document's (\"{}\")", schema.String(),
                              kProbeSchemaName));
    }
    doc.schema = kProbeSchema;
  }
  doc.openssl = root.Member("openssl").String();
  if (doc.schema >= 1 || root.Find("build") != nullptr) doc.build = ReadBuild(root.Member("build"));
  doc.groups = ReadRows(root.Member("groups"), false);
  doc.signatures = ReadRows(root.Member("signatures"), true);
  return doc;
}

ordered_json RowToJson(const ProbeRow& r) {
  ordered_json j{{"name", r.name}, {"family", r.family}, {"primitive", r.primitive}};
  if (r.x509) j["x509"] = *r.x509;
  j["tls"] = r.tls;
  j["negotiated"] = r.negotiated;
  j["error"] = r.error.empty() ? ordered_json() : ordered_json(r.error);
  j["provider"] = r.provider;
  j["tls_provider"] = r.tls_provider;
  if (r.tls_listed) j["tls_listed"] = *r.tls_listed;
  return j;
}

}  // namespace

ProbeDocument MakeProbeDocument(const ProbeReport& report) {
  ProbeDocument doc{.openssl = report.openssl_version, .build = report.build};
  for (const GroupProbe& g : report.groups) {
    doc.groups.push_back({.name = std::string(g.group->name),
                          .family = std::string(FamilyName(g.group->family)),
                          .primitive = g.primitive,
                          .tls = g.tls,
                          .negotiated = g.negotiated,
                          .error = g.error,
                          .provider = g.provider,
                          .tls_provider = g.tls_provider});
  }
  for (const SignatureProbe& s : report.signatures) {
    doc.signatures.push_back({.name = std::string(s.sig->name),
                              .family = std::string(FamilyName(s.sig->family)),
                              .primitive = s.primitive,
                              .x509 = s.x509,
                              .tls = s.tls,
                              .negotiated = s.negotiated,
                              .error = s.error,
                              .provider = s.provider,
                              .tls_provider = s.tls_provider,
                              .tls_listed = s.tls_listed});
  }
  return doc;
}

ordered_json ProbeToJson(const ProbeDocument& doc) {
  ordered_json j = ordered_json::object();
  if (doc.schema >= 1) j["schema"] = kProbeSchemaName;
  j["openssl"] = doc.openssl;
  if (doc.build) {
    const OpenSslBuildFacts& b = *doc.build;
    ordered_json providers = ordered_json::array();
    for (const ProviderFacts& p : b.providers) {
      providers.push_back({{"name", p.name}, {"version", p.version}, {"buildinfo", p.buildinfo}});
    }
    ordered_json& build = j["build"] = ordered_json::object();
    for (const BuildField& field : kBuildFields) build[std::string(field.key)] = b.*field.member;
    build["providers"] = providers;
  }
  j["groups"] = ordered_json::array();
  for (const ProbeRow& r : doc.groups) j["groups"].push_back(RowToJson(r));
  j["signatures"] = ordered_json::array();
  for (const ProbeRow& r : doc.signatures) j["signatures"].push_back(RowToJson(r));
  return j;
}

Result<ProbeDocument> ParseProbeDocument(std::string_view text) {
  ordered_json root;
  try {
    root = ordered_json::parse(text);
  } catch (const ordered_json::exception& e) {
    return MakeError(ErrorKind::kConfig, fmt::format("not JSON: {}", e.what()));
  }
  try {
    return ReadDocument(Field{root, ""});
  } catch (const BadField& e) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("not a probe document (pqc-bench probe --json): {}", e.what()));
  }
}

bool HoldsJsonObject(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c)) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c == '{';
  }
  return false;
}

Result<ProbeDocument> ReadProbeDocument(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text(std::istreambuf_iterator<char>(in), {});
  if (!in.is_open() || in.bad()) {
    return MakeError(ErrorKind::kIo, fmt::format("{}: cannot read it", path));
  }
  auto doc = ParseProbeDocument(text);
  if (!doc) return MakeError(doc.error().kind, fmt::format("{}: {}", path, doc.error().message));
  return doc;
}

}  // namespace pqc::report
