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
#include <string>
#include <vector>

#include "core/error.h"
#include "results/run_reader.h"
#include "scenario/scenario.h"

namespace pqc::scenario {

struct MergeOptions {
  std::vector<std::string> inputs;  // run directories or results.sqlite files, any order
  std::string out_dir;              // created; must not hold a results database
  std::FILE* log = stderr;
};

struct MergeOutcome {
  std::string dir;
  uint32_t shards = 0;
  uint32_t trials = 0, trials_invalid = 0;
  uint64_t connections = 0;
  bool complete = false;  // every shard complete and every planned trial on every shard
};

Result<MergeOutcome> MergeShards(const MergeOptions& options);

// StoredScenario: the scenario exactly as a stored run parsed it (its text and options), so
// that its plan is the run's (run --resume, merge).
Result<Scenario> StoredScenario(const results::RunInfo& info, ParseOptions& po);

}  // namespace pqc::scenario
