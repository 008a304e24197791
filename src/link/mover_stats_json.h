// mover_stats_json — the mover's statistics as JSON, one shape for `link --stats-json` and the
// `link` column of a stored trial.
#pragma once

#include <nlohmann/json.hpp>

#include "link/mover.h"

namespace pqc::link {

nlohmann::json MoverStatsJson(const MoverStats& s);

}  // namespace pqc::link
