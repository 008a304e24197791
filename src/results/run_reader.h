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
#include <vector>

#include "client/load_result.h"
#include "core/error.h"
#include "results/run_writer.h"
#include "results/sqlite_db.h"

namespace pqc::results {

struct StoredArm {
  uint32_t id = 0;
  std::string label;
  nlohmann::ordered_json factors;
  nlohmann::json settings;
  std::string status;  // pending | measured | failed
  std::string failure;
  std::optional<ArmFloor> floor;  // absent in schema version 1 files and unpriced arms
};

struct StoredTrial {
  int64_t id = 0;
  uint32_t arm = 0, block = 0, seq = 0;
  std::string started, ended;
  bool valid = false;
  std::vector<std::string> reasons;
  bool interrupted = false;
  nlohmann::json summary, target, link;
  std::optional<double> server_cpu_s;
  std::optional<uint64_t> server_handshakes;
  double client_cpu_s = 0;
  // The load's time base: a CLOCK_MONOTONIC instant and the UTC ns it was read with, and the
  // measured phase's bounds on the monotonic clock.
  int64_t mono_anchor_ns = 0, wall_anchor_ns = 0, measure_start_ns = 0, measure_end_ns = 0;
  nlohmann::json shards;  // a merged run's per-shard view (null otherwise)
  // MeasuredWallNs: the measured phase's start and end in UTC ns.
  int64_t MeasureStartUnixNs() const {
    return wall_anchor_ns + (measure_start_ns - mono_anchor_ns);
  }
  int64_t MeasureEndUnixNs() const { return wall_anchor_ns + (measure_end_ns - mono_anchor_ns); }
};

struct StoredRun {
  std::string path;
  int schema_version = 0;
  RunInfo info;
  std::string ended;  // empty while running or after a crash
  bool complete = false;
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
