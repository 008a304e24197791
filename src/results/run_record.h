// run_record — the typed parts of a run's facts that are stored as JSON (options_json,
// shard_json), each with one field list (core/json_fields.h) walked by RunWriter and ReadRun.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_fields.h"

namespace pqc::results {

// RunAsked: how the run was asked for, enough to read its scenario again exactly (merge,
// report on an old file): --full, --trials, every --set and --only, --stop.
struct RunAsked {
  bool full = false;
  uint32_t trials = 0;  // 0: the scenario's own count
  std::vector<std::string> set, only;
  bool stop = false;  // the study stops itself (absent in files of before: false)
};

template <class R, class V>
requires json_fields::Of<R, RunAsked>
void Fields(R& r, V& v) {
  v("full", r.full);
  v("trials", r.trials);
  v("set", r.set);
  v("only", r.only);
  v("stop", r.stop);
}

struct MergedShard;

// ShardFacts: a shard's place in its study — the rendezvous, the machine's boot (two shards
// on one boot share one clock), its clock's offset to shard 0's and the round trip that
// offset was measured over, and how late a shard may start a trial. A merged run holds every
// shard's own facts in `shards`.
struct ShardFacts {
  std::string rendezvous, boot_id;
  int64_t clock_offset_ns = 0, clock_rtt_ns = 0;
  int64_t max_start_late_ns = 10'000'000;
  std::vector<MergedShard> shards;  // a merged run only
};

struct MergedShard {
  uint32_t shard = 0;
  std::string host, source, started;
  bool complete = false;
  ShardFacts facts;
};

template <class R, class V>
requires json_fields::Of<R, ShardFacts>
void Fields(R& r, V& v) {
  v("rendezvous", r.rendezvous);
  v("boot_id", r.boot_id);
  v("clock_offset_ns", r.clock_offset_ns);
  v("clock_rtt_ns", r.clock_rtt_ns);
  v("max_start_late_ns", r.max_start_late_ns);
  v("shards", r.shards);
}

template <class R, class V>
requires json_fields::Of<R, MergedShard>
void Fields(R& r, V& v) {
  v("shard", r.shard);
  v("host", r.host);
  v("source", r.source);
  v("started", r.started);
  v("complete", r.complete);
  v("facts", r.facts);
}

}  // namespace pqc::results
