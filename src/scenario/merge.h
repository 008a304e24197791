// merge — one results database from the databases of a sharded study's shards (`pqc-bench
// merge`). Nothing is summarised before it is merged: every connection and request of every
// shard is kept, with its shard, and each trial's statistics are computed again from the
// union of the shards' raw records, so that the merged percentiles are exactly those of all
// the connections (merging per-shard summaries cannot give that). Shards that ran another
// plan, scenario or build are refused with what differs; a trial whose shards did not
// measure together (start skew past the run's tolerance) or any of whose shards measured an
// invalid trial is invalid, with the shard named.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "results/run_reader.h"
#include "scenario/merged_trial.h"
#include "scenario/scenario.h"

namespace pqc::scenario {

struct MergeOptions {
  std::vector<std::string> inputs;  // run directories or results.sqlite files, any order
  std::string out_dir;              // created; must not hold a results database
  std::FILE* log = stderr;
};

// MergedLoad: a merged trial's union of records as merge computed its statistics from,
// kept so that the report which follows need not read every row back from the file.
struct MergedLoad {
  LoadResult load;
  std::vector<results::TrialRecords> owners;  // own the strings the connections point to
};

struct MergeOutcome {
  std::string dir;
  uint32_t shards = 0;
  uint32_t trials = 0, trials_invalid = 0;
  uint64_t connections = 0;
  bool complete = false;  // every shard complete and every planned trial on every shard
  // The merged trials' unions by trial id, while they hold kMaxKeptConnections in all (the
  // rest the report reads from the file).
  std::map<int64_t, std::unique_ptr<MergedLoad>> loaded;
};

inline constexpr uint64_t kMaxKeptConnections = 10'000'000;

Result<MergeOutcome> MergeShards(const MergeOptions& options);

}  // namespace pqc::scenario
