// count_report_json — a CountReport as count.json and back: `count` writes it, `compare` and
// `report` read it. The reader checks what it reads (known stages, one count per repetition,
// finite non-negative numbers) and names what is wrong and where.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/error.h"
#include "count/count_report.h"

namespace pqc::count {

nlohmann::json CountReportJson(const CountReport& r);
Result<CountReport> ParseCountReport(std::string_view text, std::string_view source);

}  // namespace pqc::count
