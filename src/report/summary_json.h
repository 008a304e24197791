// summary_json — the one writer and the one reader of the summary document (summary.json,
// docs/summary-json.md, docs/summary.schema.json). The writer fixes the key order that
// summary.json has always had; the reader accepts only a complete document of this schema and
// names the first field that is missing or mistyped, so that a hand-edited file or one of
// another schema is refused with a message rather than half shown or thrown on.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/error.h"
#include "report/summary.h"

namespace pqc::report {

// SummaryJson: the document of `summary`, keys in the documented order.
nlohmann::ordered_json SummaryJson(const Summary& summary);

// ReadSummary: `doc` as a Summary, or a kConfig error naming the offending field
// ("arms[0].phases.handshake.p50: expected a number or null, got string"). Never throws.
Result<Summary> ReadSummary(const nlohmann::ordered_json& doc);

// ParseSummary: the text of a summary.json, parsed and read as ReadSummary does.
Result<Summary> ParseSummary(std::string_view text);

// nlohmann's conversions (found by argument-dependent lookup): `j = summary` and
// `j.get<Summary>()`. The from_json functions throw on a malformed document; ReadSummary is
// the non-throwing way in.
void to_json(nlohmann::ordered_json& j, const Bounds& b);
void to_json(nlohmann::ordered_json& j, const RunFacts& r);
void to_json(nlohmann::ordered_json& j, const StatisticBounds& b);
void to_json(nlohmann::ordered_json& j, const SpreadBounds& b);
void to_json(nlohmann::ordered_json& j, const VarianceSplit& v);
void to_json(nlohmann::ordered_json& j, const StatisticVariance& v);
void to_json(nlohmann::ordered_json& j, const TrialPlanSummary& p);
void to_json(nlohmann::ordered_json& j, const SpectrumPoint& p);
void to_json(nlohmann::ordered_json& j, const PhaseSummary& p);
void to_json(nlohmann::ordered_json& j, const TrialCounts& t);
void to_json(nlohmann::ordered_json& j, const WireBytes& b);
void to_json(nlohmann::ordered_json& j, const CpuCosts& c);
void to_json(nlohmann::ordered_json& j, const OutlierSummary& o);
void to_json(nlohmann::ordered_json& j, const SitePhase& o);
void to_json(nlohmann::ordered_json& j, const SiteSummary& o);
void to_json(nlohmann::ordered_json& j, const ArmSummary& a);
void to_json(nlohmann::ordered_json& j, const Difference& d);
void to_json(nlohmann::ordered_json& j, const StatisticDifferences& d);
void to_json(nlohmann::ordered_json& j, const Comparison& c);
void to_json(nlohmann::ordered_json& j, const ServerCpuSummary& s);
void to_json(nlohmann::ordered_json& j, const Estimate& e);
void to_json(nlohmann::ordered_json& j, const MoreCpu& m);
void to_json(nlohmann::ordered_json& j, const CapacityArmSummary& a);
void to_json(nlohmann::ordered_json& j, const CapacitySummary& c);
void to_json(nlohmann::ordered_json& j, const TrialSummary& t);
void to_json(nlohmann::ordered_json& j, const Summary& s);

void from_json(const nlohmann::ordered_json& j, Bounds& b);
void from_json(const nlohmann::ordered_json& j, RunFacts& r);
void from_json(const nlohmann::ordered_json& j, StatisticBounds& b);
void from_json(const nlohmann::ordered_json& j, SpreadBounds& b);
void from_json(const nlohmann::ordered_json& j, VarianceSplit& v);
void from_json(const nlohmann::ordered_json& j, StatisticVariance& v);
void from_json(const nlohmann::ordered_json& j, TrialPlanSummary& p);
void from_json(const nlohmann::ordered_json& j, SpectrumPoint& p);
void from_json(const nlohmann::ordered_json& j, PhaseSummary& p);
void from_json(const nlohmann::ordered_json& j, TrialCounts& t);
void from_json(const nlohmann::ordered_json& j, WireBytes& b);
void from_json(const nlohmann::ordered_json& j, CpuCosts& c);
void from_json(const nlohmann::ordered_json& j, OutlierSummary& o);
void from_json(const nlohmann::ordered_json& j, SitePhase& o);
void from_json(const nlohmann::ordered_json& j, SiteSummary& o);
void from_json(const nlohmann::ordered_json& j, ArmSummary& a);
void from_json(const nlohmann::ordered_json& j, Difference& d);
void from_json(const nlohmann::ordered_json& j, StatisticDifferences& d);
void from_json(const nlohmann::ordered_json& j, Comparison& c);
void from_json(const nlohmann::ordered_json& j, ServerCpuSummary& s);
void from_json(const nlohmann::ordered_json& j, Estimate& e);
void from_json(const nlohmann::ordered_json& j, MoreCpu& m);
void from_json(const nlohmann::ordered_json& j, CapacityArmSummary& a);
void from_json(const nlohmann::ordered_json& j, CapacitySummary& c);
void from_json(const nlohmann::ordered_json& j, TrialSummary& t);
void from_json(const nlohmann::ordered_json& j, Summary& s);

}  // namespace pqc::report

// The stop record of a study that stopped itself (results/run_record.h), and the build that
// measured a trial (results/trial_record.h), in summary.json: in
// its own namespace, where nlohmann's lookup and the reader's find them.
namespace pqc::results {
void to_json(nlohmann::ordered_json& j, const StopAnswer& a);
void to_json(nlohmann::ordered_json& j, const StopRecord& r);
void from_json(const nlohmann::ordered_json& j, StopAnswer& a);
void from_json(const nlohmann::ordered_json& j, StopRecord& r);
void to_json(nlohmann::ordered_json& j, const BuildRecord& b);
void from_json(const nlohmann::ordered_json& j, BuildRecord& b);
}  // namespace pqc::results
