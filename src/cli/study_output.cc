#include "cli/study_output.h"

#include <fmt/core.h>

#include <iostream>

#include "report/report_files.h"
#include "report/study_summary.h"
#include "scenario/run_facts.h"

namespace pqc::cli {

Result<results::StoredRun> PrintStudy(const std::string& dir, const report::LoadedTrials* loaded) {
  // A file this process has just written and holds in memory needs no page-by-page check.
  auto db = results::OpenResults(
      dir, loaded != nullptr ? results::Integrity::kLength : results::Integrity::kFull);
  if (!db) return db.error();
  auto stored = results::ReadRun(*db);
  if (!stored) return stored.error();
  scenario::FillStoredNetworkFacts(stored->info);  // a resumed file of schema version 1 or 2
  auto summary = report::BuildStudySummary(*db, *stored, {}, loaded);
  if (!summary) return summary.error();
  std::cout << '\n';
  if (Status st = report::WriteReport(std::cout, *summary, report::Format::kTable); !st) {
    return st.error();
  }
  if (Status st = report::WriteReportFiles(dir, *summary); !st) return st.error();
  fmt::print("\nresults: {}/ (results.sqlite, summary.md, summary.json, report.html)\n", dir);
  std::fflush(stdout);
  return stored;
}

}  // namespace pqc::cli
