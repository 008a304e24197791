// run_record — the typed parts of a run's facts that are stored as JSON (options_json,
// shard_json, stop_json), each with one field list (core/json_fields.h) walked by RunWriter and
// ReadRun.
#pragma once

#include <cstdint>
#include <optional>
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
  bool stop = false;                // the study stops itself (absent in files of before: false)
  std::vector<std::string> builds;  // run --build NAME=PATH, absolute (absent before: none)
  // A study that chose its trial length after a pilot: `set` ends with the chosen duration,
  // and these say which blocks were the pilot and their length, so that a resumed run neither
  // pools nor chooses again (absent before: no pilot).
  uint64_t pilot_blocks = 0;
  double pilot_trial_s = 0;
};

template <class R, class V>
requires json_fields::Of<R, RunAsked>
void Fields(R& r, V& v) {
  v("full", r.full);
  v("trials", r.trials);
  v("set", r.set);
  v("only", r.only);
  v("stop", r.stop);
  v("builds", r.builds);
  v("pilot_blocks", r.pilot_blocks);
  v("pilot_trial_s", r.pilot_trial_s);
}

// StopAnswer: one question of a study that stopped itself, as its last look answered it
// (stats/stopping_rule.h): the difference other − baseline of one statistic of one phase, in
// µs; answered: [lo, hi] is estimate ± target, else the interval computed at that look.
struct StopAnswer {
  std::string question;  // "handshake p50, X25519MLKEM768 − X25519 (group; fresh)"
  std::string factor, phase, statistic;
  uint64_t baseline_arm = 0, other_arm = 0;  // arm ids
  std::optional<double> estimate, lo, hi, half_width, target;
  bool answered = false;
  std::optional<uint64_t> blocks_to_answer;  // unanswered: the blocks that would answer it
  uint64_t blocks = 0;  // the blocks with a valid trial of both arms it was judged on
};

template <class R, class V>
requires json_fields::Of<R, StopAnswer>
void Fields(R& r, V& v) {
  v("question", r.question);
  v("factor", r.factor);
  v("phase", r.phase);
  v("statistic", r.statistic);
  v("baseline_arm", r.baseline_arm);
  v("other_arm", r.other_arm);
  v("estimate_us", r.estimate);
  v("lo_us", r.lo);
  v("hi_us", r.hi);
  v("half_width_us", r.half_width);
  v("target_us", r.target);
  v("answered", r.answered);
  v("blocks_to_answer", r.blocks_to_answer);
  v("blocks", r.blocks);
}

// StopRecord: how a study that stopped itself ended — why ("answered", "block budget",
// "time budget"), after how many blocks and seconds, what it asked ([stop] as one line) and
// every question's answer.
struct StopRecord {
  std::string reason, asked;
  uint64_t blocks = 0;
  double elapsed_s = 0;
  // The trials' measured length the answers rest on, and the pilot before it was chosen
  // (blocks not pooled; 0: none). Absent in files of before: 0.
  double trial_s = 0;
  uint64_t pilot_blocks = 0;
  double pilot_trial_s = 0;
  std::vector<StopAnswer> answers;
};

template <class R, class V>
requires json_fields::Of<R, StopRecord>
void Fields(R& r, V& v) {
  v("reason", r.reason);
  v("asked", r.asked);
  v("blocks", r.blocks);
  v("elapsed_s", r.elapsed_s);
  v("trial_s", r.trial_s);
  v("pilot_blocks", r.pilot_blocks);
  v("pilot_trial_s", r.pilot_trial_s);
  v("answers", r.answers);
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
