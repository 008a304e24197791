// summary_fields — tolerant reads of the summary JSON ("pqc-bench/summary/1"). The report must
// never crash on a document it did not write itself (a hand-edited file, an older schema):
// every read here checks the type and answers "absent" instead of throwing, so a missing or
// mistyped field shows as "–" or an omitted chart, never as an exception.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pqc::report {

// Field: object[key] when `object` is an object holding `key`, else nullptr.
const nlohmann::json* Field(const nlohmann::json& object, std::string_view key);

// Number: a finite number at object[key] (null, absent, non-numeric → nullopt).
std::optional<double> Number(const nlohmann::json& object, std::string_view key);

// Text: a string at object[key]; a number or bool is printed as JSON; absent/null → fallback.
std::string Text(const nlohmann::json& object, std::string_view key,
                 std::string_view fallback = "");

// Items: the elements of the array at object[key] (empty when absent or not an array).
std::vector<const nlohmann::json*> Items(const nlohmann::json& object, std::string_view key);

// The phases in the order connections go through them (DESIGN.md "phases of a connection").
inline constexpr std::string_view kPhases[] = {"connect", "handshake", "ttfb", "response", "total"};

// ArmName: the arm's label, or "arm <id>" when it has none.
std::string ArmName(const nlohmann::json& arm);

}  // namespace pqc::report
