// summary_output — the printers of a LoadSummary: a terminal table that also reads as
// Markdown, and JSON for machines. Printers only format: every number comes from summary.h,
// so the two never disagree, and both take an injected stream so tests check their text.
// Neither changes shape with the data: all phases, columns and keys are always present, with
// "-" (table) or null (JSON) for a number that is undefined (e.g. no samples).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>

#include "core/error.h"
#include "records/summary.h"

namespace pqc {

// WriteSummaryTable: per-phase table in µs with one decimal (count, min, mean, p50, p75, p90,
// p95, p99, p99.9, max), then negotiated parameters, bytes, load-generator health, errors and
// VALID / INVALID with every reason.
void WriteSummaryTable(std::ostream& out, const LoadSummary& summary);

// SummaryJson: {"arm", "connections", "errors", "negotiated", "phases", "bytes", "loadgen",
// "valid", "invalid_reasons"}; keys in that order (ordered_json) so that files diff well.
nlohmann::ordered_json SummaryJson(const LoadSummary& summary);
// LoadSummaryFromJson: SummaryJson read back (client/summary_fields.h: a key missing from an
// older file keeps its default; a value of the wrong type is an error naming `what` and the
// key's path).
Result<LoadSummary> LoadSummaryFromJson(const nlohmann::json& j, std::string_view what);

// WriteSummaryJson: SummaryJson pretty-printed (indent 2) with a final newline.
void WriteSummaryJson(std::ostream& out, const LoadSummary& summary);

}  // namespace pqc
