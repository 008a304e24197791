// count_compare — two `pqc-bench count` results side by side (`compare A B` when both are count
// directories or count.json files): per side and stage the instructions per handshake of each,
// the difference with its range over the repetitions, and --fail-if gates on counts
// (count/count_gate.h) — two OpenSSL builds, or before and after a change, stage by stage.
// Also `report` of one count result: its tables again.
#pragma once

#include <string>

#include "core/error.h"
#include "count/count_report.h"

namespace pqc::cli {

// IsCountResult: a directory holding count.json, or a JSON file written by `count`.
bool IsCountResult(const std::string& path);
// IsCountComparison: compare's positional inputs are all count results.
bool IsCountComparison(int argc, char** argv);
int CompareCountsMain(int argc, char** argv);

// ReadCountResult: a count directory's count.json, or the file itself.
Result<count::CountReport> ReadCountResult(const std::string& path);

}  // namespace pqc::cli
