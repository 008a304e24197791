// study_output — what `run` and `merge` print and write when a study's database is complete:
// the summary table on stdout, and summary.md, summary.json and report.html beside the
// database, all from the stored run (so a merged database reads exactly like a run's).
#pragma once

#include <string>

#include "core/error.h"
#include "report/arm_samples.h"
#include "results/run_reader.h"

namespace pqc::cli {

// PrintStudy: `loaded` holds trials whose records the caller has in memory (merge), which are
// then not read back from the database.
Result<results::StoredRun> PrintStudy(const std::string& dir,
                                      const report::LoadedTrials* loaded = nullptr);

}  // namespace pqc::cli
