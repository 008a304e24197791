// run_writer — writes one run into its results database as it happens: the run's facts and
// arms first, then each trial in one transaction as soon as it ends, then the end time and
// the complete flag. A run killed at any point therefore leaves a database that opens, holds
// every finished trial, and says it is incomplete; `run --resume` continues from it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/shard.h"
#include "records/load_result.h"
#include "results/network_facts.h"
#include "results/run_record.h"
#include "results/sqlite_db.h"
#include "results/trial_record.h"

namespace pqc::results {

struct RunInfo {
  std::string scenario, scenario_file, scenario_text, title;
  RunAsked options;  // how it was run: --full, --trials, --set, --only
  std::string tool_version, git_commit, openssl_version;
  std::string cpu_model, kernel, hostname;
  unsigned cores = 0;
  std::string target;
  uint64_t seed = 0;
  uint32_t trials_planned = 0;
  std::string started;  // UTC, ISO 8601
  // speed: the primitive timings the arms' crypto floors were priced with, measured at the
  // start of the run on this machine (SpeedJson); null when not measured.
  nlohmann::json speed;
  // networks: the network profiles of the arms by name (network_facts.h); empty in files of
  // schema versions 1 and 2.
  Networks networks;
  // Shards: this run's place among the shards of one study (index 0 of 1 when not sharded);
  // merged = the union of every shard (pqc-bench merge). shard_facts (run_record.h): none
  // when not sharded.
  ShardSpec shard;
  bool merged = false;
  std::optional<ShardFacts> shard_facts;
};

// ArmFloor: an arm's predicted crypto CPU per handshake (speed/crypto_floor.h) on each side.
// For a mode mix it is the mix's weighted mean of the fresh and resumed floors.
struct ArmFloor {
  double client_us = 0, server_us = 0;
  nlohmann::json detail;  // how it was priced: terms, mode weights
};

struct ArmRow {
  uint32_t id = 0;
  std::string label;
  nlohmann::ordered_json factors;  // {"group": "X25519", …} in factor order
  nlohmann::json settings;         // ArmSettings as JSON
  std::optional<ArmFloor> floor;   // absent when it could not be priced
};

// TrialRow: one finished trial to write (trial_record.h), with its raw connections and
// requests: `load`, or without it (a merge copies its records itself) none.
struct TrialRow : TrialRecord {
  const LoadResult* load = nullptr;  // its measured phase's bounds are the trial's
  // The shard of each connection (parallel to load->connections; null: all `shard`'s).
  const std::vector<uint32_t>* connection_shards = nullptr;
  uint32_t shard = 0;
};

class RunWriter {
 public:
  // Create: a new database at `path` (which must not exist) with the run and its arms.
  static Result<RunWriter> Create(const std::string& path, const RunInfo& run,
                                  const std::vector<ArmRow>& arms);
  // Reopen: an existing run's database, to add the trials it lacks (run --resume). Trials
  // of an interrupted attempt are deleted so that they run again.
  static Result<RunWriter> Reopen(const std::string& path);

  // WriteTrial: the trial and its records in one transaction; returns the trial's id.
  Result<int64_t> WriteTrial(const TrialRow& trial);
  Status MarkArmFailed(uint32_t arm, const std::string& failure);
  // RecordStop: how a study that stopped itself ended (replaces what a resumed run's earlier
  // stop wrote, if any).
  Status RecordStop(const StopRecord& stop);
  // ChooseTrialLength: a study that goes on at another trial length after a pilot, in one
  // transaction: the run's options become `options` (their last --set the chosen duration,
  // their pilot fields filled), every trial of the pilot's blocks is marked invalid with
  // `reason` added to its reasons (every reader then leaves it out: the pilot's trials are
  // another length's, and do not pool), and each arm's stored settings become `settings`.
  Status ChooseTrialLength(const RunAsked& options, const std::string& reason,
                           const std::vector<std::pair<uint32_t, nlohmann::json>>& settings);
  Status Finish(const std::string& ended, bool complete);
  Db& db() { return *db_; }

 private:
  explicit RunWriter(std::unique_ptr<Db> db) : db_(std::move(db)) {}
  std::unique_ptr<Db> db_;
};

}  // namespace pqc::results
