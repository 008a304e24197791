// comparison_tables — a RunComparison as the findings and the grids every format of `compare`
// prints (terminal, Markdown, HTML): the sentences first, each detectable difference with its
// interval, then the runs' facts, one table per matched arm and run, its CPU and bytes, and
// the gates. Formatting only: every number comes from run_comparison.h.
#pragma once

#include <string>
#include <vector>

#include "core/text_table.h"
#include "report/run_comparison.h"

namespace pqc::report {

// ComparisonFindings: for each arm, run and phase, its median and its tail (p50, p99) in one
// sentence when either differs detectably, with its interval and its size relative to the
// baseline; a detectable change of the server's CPU per handshake likewise; then how many
// arm phases show no detectable difference.
std::vector<std::string> ComparisonFindings(const RunComparison& c);

std::string RunName(const RunComparison& c, size_t run);
// VersusTitle: "X25519: run 2 vs run 1".
std::string VersusTitle(const RunComparison& c, const MatchedArm& a, const ArmVersus& v);

// UnmatchedText: "X25519MLKEM768 {"group":…}: in run 1 only".
std::string UnmatchedText(const RunComparison& c, const UnmatchedArm& a);
// SettingDifferencesText: the arm's stored settings that differ, "; "-joined.
std::string SettingDifferencesText(const ArmVersus& v);

Table RunsTable(const RunComparison& c);
Table LatencyTable(const RunComparison& c, const ArmVersus& v);  // ms
Table CpuTable(const RunComparison& c, const ArmVersus& v);      // µs
Table BytesTable(const RunComparison& c, const ArmVersus& v);
Table GatesTable(const RunComparison& c);

}  // namespace pqc::report
