// trial_copy — one database's rows of a trial copied into another's trial inside SQLite (a
// merge: every shard's rows into the merged file), renumbered and shifted by the column roles
// of records/connection_columns.h. No row is decoded and bound again: for millions of rows this is
// what keeps a merge to seconds.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"
#include "results/sqlite_db.h"

namespace pqc::results {

// TrialCopy: where one file's rows of a trial go.
struct TrialCopy {
  std::string file;                                   // the source database
  int version = 0;                                    // its schema version
  int64_t from = 0;                                   // its trial id
  int64_t connection_offset = 0, request_offset = 0;  // added to its ids
  int64_t shift = 0;                                  // added to its timestamps (nanoseconds)
  uint32_t shard = 0;                                 // the shard that measured them
};

// TrialExtent: what a trial occupies in its file: its next free connection id, its requests.
struct TrialExtent {
  int64_t next_id = 0, requests = 0;
};
Result<TrialExtent> ReadTrialExtent(Db& db, int64_t trial);

// CopyTrialRows: `p`'s rows into trial `to` of `out`, in one transaction (all or none).
Status CopyTrialRows(Db& out, const TrialCopy& p, int64_t to);

// CountConnections: the connections trial `trial` of `db` holds.
Result<uint64_t> CountConnections(Db& db, int64_t trial);

}  // namespace pqc::results
