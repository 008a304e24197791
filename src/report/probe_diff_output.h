// probe_diff_output — a ProbeDiff as the terminal text, Markdown or JSON: what changed first
// (one line per algorithm, "slh-dsa-sha2-128f: tls FAIL → ok", with the reason it failed),
// or "no algorithm changed"; the algorithms one build lacks; then the two builds' facts side
// by side.
#pragma once

#include <ostream>

#include "core/error.h"
#include "report/probe_diff.h"
#include "report/report_files.h"

namespace pqc::report {

// WriteProbeDiff: table, md or json (csv and html are refused with what is valid).
Status WriteProbeDiff(std::ostream& out, const ProbeDiff& d, Format format);

// ChangeLine: "slh-dsa-sha2-128f: tls FAIL → ok" (or "…: same layers, another reason").
std::string ChangeLine(const AlgorithmChange& c);

}  // namespace pqc::report
