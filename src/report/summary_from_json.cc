// summary_from_json.cc — the reader half of summary_json.h, walking the same field lists as
// the writer (summary_fields.h). Every field of the schema must be present with its type (a number
// that could not be computed is null, so absent means the document is not this schema); keys it
// does not know are ignored. A bad field is reported with its path, which the nested reads build as
// the error travels up.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "core/json_fields.h"
#include "report/summary_fields.h"
#include "report/summary_json.h"

namespace pqc::report {
namespace {

using nlohmann::ordered_json;

// The path-carrying error and its helpers are core/json_fields.h's, shared with the records'
// lenient reader; this one differs in requiring every field.
using json_fields::Fail;
using json_fields::FormatError;
using json_fields::Step;

void RequireObject(const ordered_json& j) {
  if (!j.is_object()) Fail("an object", j);
}

// Scalar: `v` into `out` when `is_kind` says it has the type, else a failure naming `kind`.
template <class T>
void Scalar(const ordered_json& v, T& out, bool (ordered_json::*is_kind)() const noexcept,
            std::string_view kind) {
  if (!(v.*is_kind)()) Fail(kind, v);
  out = v.get<T>();
}
void ReadValue(const ordered_json& v, double& out) {
  Scalar(v, out, &ordered_json::is_number, "a number");
}
void ReadValue(const ordered_json& v, uint64_t& out) {
  Scalar(v, out, &ordered_json::is_number_unsigned, "a non-negative integer");
}
void ReadValue(const ordered_json& v, int64_t& out) {
  Scalar(v, out, &ordered_json::is_number_integer, "an integer");
}
void ReadValue(const ordered_json& v, bool& out) {
  Scalar(v, out, &ordered_json::is_boolean, "true or false");
}
void ReadValue(const ordered_json& v, std::string& out) {
  Scalar(v, out, &ordered_json::is_string, "a string");
}
void ReadValue(const ordered_json& v, ArmOutcome& out) {
  std::string text;
  ReadValue(v, text);
  auto o = ParseArmOutcome(text);
  if (!o)
    throw FormatError(fmt::format("'{}' is not an arm status (valid: ok, invalid, failed)", text));
  out = *o;
}
// The arm's echo of its settings: any object (its keys belong to the scenario).
void ReadValue(const ordered_json& v, ordered_json& out) {
  RequireObject(v);
  out = v;
}
// Phases: keyed by phase name, only those with samples.
void ReadValue(const ordered_json& v,
               std::array<std::optional<PhaseSummary>, kAllPhases.size()>& out) {
  RequireObject(v);
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& name = it.key();
    const ordered_json& value = it.value();
    const auto* p = std::find_if(kAllPhases.begin(), kAllPhases.end(),
                                 [&](Phase phase) { return PhaseName(phase) == name; });
    Step(name, [&] {
      if (p == kAllPhases.end()) throw FormatError("not a phase");
      from_json(value, out[static_cast<size_t>(*p)].emplace());
    });
  }
}
template <class T>
void ReadValue(const ordered_json& v, T& out) {
  from_json(v, out);  // a record of summary.h
}
// A nullable field: null, or a value of its type.
template <class T>
void ReadValue(const ordered_json& v, std::optional<T>& out) {
  if (v.is_null()) {
    out.reset();
    return;
  }
  ReadValue(v, out.emplace());
}
template <class T>
void ReadValue(const ordered_json& v, std::vector<T>& out) {
  if (!v.is_array()) Fail("an array", v);
  out.assign(v.size(), T{});
  for (size_t i = 0; i < v.size(); ++i)
    Step(fmt::format("[{}]", i), [&] { ReadValue(v[i], out[i]); });
}

// Read: every field of `record` from the object `j`; a missing key or a bad value fails with
// the key in its path.
template <Record T>
void Read(const ordered_json& j, T& record) {
  RequireObject(j);
  Fields(record, [&](const char* key, auto& value) {
    Step(key, [&] {
      auto it = j.find(key);
      // An arm's sites are absent unless its network has several (see the writer).
      if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::vector<SiteSummary>>) {
        if (it == j.end()) return;
      }
      if (it == j.end() && AddedInSchemaTwo(key)) return;
      if (it == j.end()) throw FormatError("missing");
      ReadValue(*it, value);
    });
  });
}

}  // namespace

void from_json(const ordered_json& j, Bounds& b) {
  if (!j.is_array() || j.size() != 2) Fail("an interval [lo, hi]", j);
  std::optional<double>* ends[] = {&b.lo, &b.hi};
  for (size_t i = 0; i < 2; ++i) Step(fmt::format("[{}]", i), [&] { ReadValue(j[i], *ends[i]); });
}

void from_json(const ordered_json& j, RunFacts& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, StatisticBounds& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, VarianceSplit& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, StatisticVariance& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, TrialPlanSummary& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, SpreadBounds& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, SpectrumPoint& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, PhaseSummary& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, TrialCounts& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, WireBytes& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, CpuCosts& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, OutlierSummary& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, SitePhase& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, SiteSummary& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, ArmSummary& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, Difference& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, StatisticDifferences& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, Comparison& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, ServerCpuSummary& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, Estimate& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, MoreCpu& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, CapacityArmSummary& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, CapacitySummary& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, TrialSummary& r) {
  Read(j, r);
}
void from_json(const ordered_json& j, Summary& r) {
  Read(j, r);
}

Result<Summary> ReadSummary(const ordered_json& doc) {
  const auto schema = doc.is_object() ? doc.find("schema") : doc.end();
  const std::string name = doc.is_object() && schema != doc.end() && schema->is_string()
                               ? schema->get<std::string>()
                               : "";
  if (name != kSummarySchema && name != kSummarySchemaOne) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("not a pqc-bench summary: \"schema\" is \"{}\", expected \"{}\" "
                                 "(or the older \"{}\")",
                                 name, kSummarySchema, kSummarySchemaOne));
  }
  const auto run = doc.find("run");
  const auto arms = doc.find("arms");
  if (run == doc.end() || !run->is_object() || arms == doc.end() || !arms->is_array()) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("the summary needs a \"run\" object and an \"arms\" array "
                                 "(schema {})",
                                 kSummarySchema));
  }
  try {
    Summary s;
    from_json(doc, s);
    if (name == kSummarySchemaOne) s.run.replicate = "connection";
    return s;
  } catch (const FormatError& e) {
    return MakeError(ErrorKind::kConfig, fmt::format("not a valid pqc-bench summary ({}): {}",
                                                     kSummarySchema, e.Message()));
  } catch (const std::exception& e) {  // nlohmann's, or memory: still a message, not a crash
    return MakeError(ErrorKind::kConfig, fmt::format("cannot read the summary: {}", e.what()));
  }
}

Result<Summary> ParseSummary(std::string_view text) {
  ordered_json doc = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return MakeError(ErrorKind::kConfig, "the summary is not valid JSON");
  return ReadSummary(doc);
}

}  // namespace pqc::report

namespace pqc::results {
// The record's own reader (run_record.h's field list, as the results database reads it): its
// errors carry their path like the rest of the document's.
void from_json(const nlohmann::ordered_json& j, StopAnswer& a) {
  json_fields::Reader<nlohmann::ordered_json>::Value(j, a);
}
void from_json(const nlohmann::ordered_json& j, StopRecord& r) {
  json_fields::Reader<nlohmann::ordered_json>::Value(j, r);
}
void from_json(const nlohmann::ordered_json& j, BuildRecord& b) {
  json_fields::Reader<nlohmann::ordered_json>::Value(j, b);
}
}  // namespace pqc::results
