// trial_table — the `trials` table's one writer and one reader, both walking TrialColumns
// (trial_record.h), so the INSERT's column list, the SELECT's and the types each column is
// bound and read with come from one place.
// pqc: internal (RunWriter and ReadRun are the results layer's interface)
#pragma once

#include <cstdint>
#include <vector>

#include "core/error.h"
#include "results/sqlite_db.h"
#include "results/trial_record.h"

namespace pqc::results {

// InsertTrial: `trial` as a new row (id 0: the next free id); returns the row's id.
Result<int64_t> InsertTrial(Db& db, const TrialRecord& trial);

// ReadTrials: every trial of a file of schema `version`, in run order (seq). A column that
// version lacks reads as the member's default; a column that does not hold its type is a
// corrupt file, named with the trial and the column.
Result<std::vector<TrialRecord>> ReadTrials(Db& db, int version);

}  // namespace pqc::results
