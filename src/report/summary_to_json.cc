// summary_to_json.cc — the writer half of summary_json.h: every record's fields
// (summary_fields.h) in their order, which is the order summary.json has had since schema 1,
// so that two documents can be compared as text. A missing number is written as null.
#include <type_traits>

#include "core/json_fields.h"
#include "report/summary_fields.h"
#include "report/summary_json.h"

namespace pqc::report {
namespace {

using nlohmann::ordered_json;

template <class T>
ordered_json Value(const T& v) {
  return ordered_json(v);  // a scalar, a string, the settings echo, or a record (to_json)
}
ordered_json Value(ArmOutcome o) {
  return std::string(ArmOutcomeName(o));
}
template <class T>
ordered_json Value(const std::optional<T>& v) {
  return v ? Value(*v) : ordered_json();
}
template <class T>
ordered_json Value(const std::vector<T>& items) {
  ordered_json out = ordered_json::array();
  for (const T& item : items) out.push_back(Value(item));
  return out;
}
// Phases: an object of the phases that have samples, in the order a connection goes through
// them.
ordered_json Value(const std::array<std::optional<PhaseSummary>, kAllPhases.size()>& phases) {
  ordered_json out = ordered_json::object();
  for (Phase p : kAllPhases) {
    if (const auto& s = phases[static_cast<size_t>(p)]) out[std::string(PhaseName(p))] = *s;
  }
  return out;
}

template <Record T>
ordered_json Write(const T& record) {
  ordered_json out = ordered_json::object();
  Fields(record, [&](const char* key, const auto& value) {
    // An arm's sites are written only for a network of several (a later addition to schema
    // 1: every other arm's document stays as it was).
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::vector<SiteSummary>>) {
      if (value.empty()) return;
    }
    // The stop record only for a study that stopped itself (a later addition to schema 2:
    // every other study's document stays as it was).
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>,
                                 std::optional<results::StopRecord>>) {
      if (!value) return;
    }
    out[key] = Value(value);
  });
  return out;
}

}  // namespace

void to_json(ordered_json& j, const Bounds& b) {
  j = ordered_json::array({Value(b.lo), Value(b.hi)});
}

void to_json(ordered_json& j, const RunFacts& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const StatisticBounds& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const VarianceSplit& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const StatisticVariance& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const TrialPlanSummary& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const SpreadBounds& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const SpectrumPoint& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const PhaseSummary& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const TrialCounts& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const WireBytes& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const CpuCosts& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const OutlierSummary& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const SitePhase& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const SiteSummary& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const ArmSummary& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const Difference& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const StatisticDifferences& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const Comparison& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const ServerCpuSummary& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const Estimate& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const MoreCpu& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const CapacityArmSummary& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const CapacitySummary& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const TrialSummary& r) {
  j = Write(r);
}
void to_json(ordered_json& j, const Summary& r) {
  j = Write(r);
}

ordered_json SummaryJson(const Summary& summary) {
  return summary;
}

}  // namespace pqc::report

namespace pqc::results {
// The record's own field list (run_record.h), as the results database stores it.
void to_json(nlohmann::ordered_json& j, const StopAnswer& a) {
  j = json_fields::Write(a);
}
void to_json(nlohmann::ordered_json& j, const StopRecord& r) {
  j = json_fields::Write(r);
}
void to_json(nlohmann::ordered_json& j, const BuildRecord& b) {
  j = json_fields::Write(b);
}
}  // namespace pqc::results
