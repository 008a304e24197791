// merged_trial — one trial of a sharded study computed again from every shard's raw records
// (merge.h reads them and copies the rows; this is the arithmetic, with no file): the shards'
// timestamps put on shard 0's clock, the load generators' accounting added up, the statistics
// of the union, and the reasons the merged trial is invalid (a shard invalid, missing, or
// not measuring together with shard 0).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "records/load_result.h"
#include "results/run_reader.h"
#include "results/run_writer.h"

namespace pqc::scenario {

// kFollowersInvalid: the end of shard 0's reason when other shards' trials were invalid
// ("shard(s) 2 measured an invalid trial"). merge leaves it out of the merged trial, which
// lists each shard's own reasons: it would only repeat them, in words no check knows.
inline constexpr std::string_view kFollowersInvalid =
    "measured an invalid trial (their reasons are in their results)";

// ShardTrial: one shard's stored trial and its raw records, as the merge reads them.
struct ShardTrial {
  uint32_t shard = 0;
  std::string host, source;
  std::string boot_id;    // "" = unknown: its clock is taken to be another machine's
  int64_t offset_ns = 0;  // shard 0's wall clock minus this shard's (its rendezvous measured it)
  const results::TrialRecord* trial = nullptr;
  results::TrialRecords records;  // moved into the merged trial's union
};

struct MergedTrial {
  LoadResult load;                              // the union, on shard 0's clock
  std::vector<results::TrialRecords> records;   // own the strings the connections point to
  std::vector<uint64_t> connections, requests;  // per shard
  results::TrialRow row;
};

// ShiftNs: what to add to `s`'s CLOCK_MONOTONIC timestamps of the trial to put them on
// `lead`'s (shard 0's). Zero when both read the same clock (one boot); else through the wall
// clocks of both trials' anchors and the shard's measured offset.
int64_t ShiftNs(const ShardTrial& s, const ShardTrial& lead);

// CombineTrial: the merged trial of `shards` (shard 0 first, every one that stored it);
// `missing` names the shards that did not store it (the trial is then invalid, merged from
// the others); `tolerance_ns` is how far a shard's measured phase may start from shard 0's;
// `options` are the arm's load options (the summary's arm facts and limits).
MergedTrial CombineTrial(std::vector<ShardTrial> shards, const std::vector<uint32_t>& missing,
                         int64_t tolerance_ns, const LoadOptions& options);

}  // namespace pqc::scenario
