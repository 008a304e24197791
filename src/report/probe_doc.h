// probe_doc — `pqc-bench probe --json` as a typed record: one struct, one writer, one reader,
// so that a document written by any build (another OpenSSL, another machine, last month's)
// is read back into the types a probe comparison works on, and nothing downstream indexes
// raw JSON. The document's keys are listed in docs/cli.md, "Comparing OpenSSL builds".
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "tls/openssl_build.h"
#include "tls/probe.h"

namespace pqc::report {

// kProbeSchema: the `probe_schema` this build writes. 0 (or the key absent) is a document
// written before the build facts were recorded: its algorithms are read, its build is unknown.
inline constexpr int kProbeSchema = 1;

// BuildField: one of the build's text facts — its key in the document, how a comparison labels
// it and where it lives — listed once for the writer, the reader and the comparison.
struct BuildField {
  std::string_view key;
  std::string_view label;
  std::string OpenSslBuildFacts::*member;
};
inline constexpr BuildField kBuildFields[] = {
    {"version_text", "version text", &OpenSslBuildFacts::version_text},
    {"cflags", "compiler flags", &OpenSslBuildFacts::cflags},
    {"built_on", "built on", &OpenSslBuildFacts::built_on},
    {"platform", "platform", &OpenSslBuildFacts::platform},
    {"dir", "OPENSSLDIR", &OpenSslBuildFacts::dir},
    {"modules_dir", "modules dir", &OpenSslBuildFacts::modules_dir},
};

// ProbeRow: one group or signature type, each layer as the probe measured it.
struct ProbeRow {
  std::string name;
  std::string family;
  bool primitive = false;
  std::optional<bool> x509;  // signature types only: a group has no certificate layer
  bool tls = false;
  std::string negotiated;  // what the handshake agreed on; "" if it failed
  std::string error;       // the first failure's reason; "" if none
  // Which provider implements the primitive (and X.509) layer and which lists it for TLS
  // ("libssl": built in); "" when none does or the document predates them.
  std::string provider;
  std::string tls_provider;
  std::optional<bool> tls_listed;  // signature types: the TLS layer lists a scheme for it

  bool operator==(const ProbeRow&) const = default;
};

struct ProbeDocument {
  int schema = kProbeSchema;
  std::string openssl;                     // "3.5.7"
  std::optional<OpenSslBuildFacts> build;  // absent only in a schema 0 document
  std::vector<ProbeRow> groups;
  std::vector<ProbeRow> signatures;

  bool operator==(const ProbeDocument&) const = default;
};

ProbeDocument MakeProbeDocument(const ProbeReport& report);

nlohmann::ordered_json ProbeToJson(const ProbeDocument& doc);

// ParseProbeDocument: the document's text → its record. Every field of the schema must be
// there with its type; unknown keys are ignored. A bad document's error names the field by its
// path ("signatures[3].tls: expected true or false, got string").
Result<ProbeDocument> ParseProbeDocument(std::string_view text);

// HoldsJsonObject: `path` is a regular file whose first non-blank character opens a JSON
// object — a probe document, or meant to be one (then ReadProbeDocument says what is wrong) —
// and so neither a run directory nor a results.sqlite.
bool HoldsJsonObject(const std::string& path);

// ReadProbeDocument: the file → its record; errors start with the file's name.
Result<ProbeDocument> ReadProbeDocument(const std::string& path);

}  // namespace pqc::report
