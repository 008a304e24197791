// run_reader — reads a results database back: the run's facts, its arms and trials, and the
// raw records of a trial as the load generator produced them, so that statistics and
// reports are computed from exactly what was measured. Refuses a foreign or corrupt file
// with a message that says so, instead of failing on a missing column later.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "records/load_result.h"
#include "results/arm_view.h"
#include "results/run_writer.h"
#include "results/sqlite_db.h"

namespace pqc::results {

// ArmStatus: an arm's state in the run (the arms table's status column): no trial stored
// yet, at least one stored, or it cannot run here (its failure says why).
enum class ArmStatus : uint8_t { kPending, kMeasured, kFailed };
std::string_view ArmStatusName(ArmStatus s);  // "pending" | "measured" | "failed"

struct StoredArm {
  uint32_t id = 0;
  std::string label;
  nlohmann::ordered_json factors;
  nlohmann::json settings;
  ArmStatus status = ArmStatus::kPending;
  std::string failure;
  std::optional<ArmFloor> floor;  // absent in schema version 1 files and unpriced arms
  ArmView view;                   // the settings reports compute with, typed (arm_view.h)
};

// StoredTrial: a trial as read back, the same record the runner wrote.
using StoredTrial = TrialRecord;

struct StoredRun {
  std::string path;
  int schema_version = 0;
  RunInfo info;
  std::string ended;  // empty while running or after a crash
  bool complete = false;
  std::optional<StopRecord> stop;  // a study that stopped itself (schema 8 on)
  std::vector<StoredArm> arms;
  std::vector<StoredTrial> trials;  // in run order (seq)
};

// TrialRecords: a trial's connections and requests. `strings` owns the text that
// ConnectionRecord points to (the cipher name), so keep the two together.
struct TrialRecords {
  LoadResult load;
  std::vector<uint32_t> shards;  // the shard of each connection (parallel to load.connections)
  std::set<std::string> strings;
};

// Integrity: how OpenResults makes sure a file is whole before anything is read from it.
enum class Integrity {
  kFull,    // PRAGMA quick_check: every page read once (for a reader of some of the rows)
  kLength,  // the file holds every page SQLite counts in it, so a truncated copy is refused at
            // once: for a caller that reads every row anyway (SQLite reports a damaged page
            // when it reads it). With a non-empty write-ahead log beside it: the full check.
};

// OpenRun: the results.sqlite at `path`, or inside `path` when it is a directory.
Result<Db> OpenResults(const std::string& path, Integrity integrity = Integrity::kFull);
Result<StoredRun> ReadRun(Db& db);
Result<TrialRecords> ReadTrialRecords(Db& db, int64_t trial_id);

}  // namespace pqc::results
