// report_files — everything `run` leaves next to results.sqlite when it ends (and `report
// --write` regenerates): summary.json (the summary document), summary.md and report.html.
// Each file is written to a temporary name and renamed, so a reader never sees half a file.
#pragma once

#include <ostream>
#include <string>

#include "core/error.h"
#include "report/summary.h"

namespace pqc::report {

enum class Format { kTable, kMarkdown, kCsv, kJson, kHtml };
Result<Format> ParseFormat(const std::string& name);  // table | md | csv | json | html

// WriteReport: `summary` in `format` to `out`.
Status WriteReport(std::ostream& out, const Summary& summary, Format format);

// WriteReportFiles: summary.json, summary.md and report.html into `dir`.
Status WriteReportFiles(const std::string& dir, const Summary& summary);

}  // namespace pqc::report
