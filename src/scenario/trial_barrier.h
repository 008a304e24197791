// trial_barrier — which trial a run measures next, and what the other shards must hear around
// it. One interface with three implementations, so that the runner has one loop whatever its
// place in a study:
//   solo      (an unsharded run) walks the plan in order, past what is stored and past arms
//             that failed;
//   leader    (shard 0 of several) walks the plan too, announces each trial's start to the
//             others once its target is up, waits for their DONE before stopping it, and
//             tells them SKIP for an arm it cannot run, END or STOP at the end;
//   follower  (any other shard) runs what shard 0 announces, in its order, and answers every
//             announced trial with DONE, also one it could not run, so that shard 0 never
//             waits for a trial no one is measuring.
// The messages themselves are rendezvous.h's.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "scenario/plan.h"
#include "scenario/rendezvous.h"

namespace pqc::scenario {

// NextTrial: what the barrier hands the runner.
struct NextTrial {
  const PlannedTrial* trial = nullptr;  // null: the run is over (`stopped` says if early)
  std::string stopped;
  uint64_t position = 0;  // 1-based, for the progress line
  // A follower's trial: shard 0 started the target (or could not: `skip`).
  std::optional<TrialStart> announced;
};

// Others: how the other shards ended one trial (empty for a solo run).
struct Others {
  std::vector<uint32_t> invalid;  // measured an invalid trial
  std::string lost;  // not empty: shards were lost in this trial, and why (the study stops)
};

class TrialBarrier {
 public:
  virtual ~TrialBarrier() = default;
  // Next: the next trial to measure; `failed_arms` are not measured again.
  virtual Result<NextTrial> Next(const std::set<uint32_t>& failed_arms) = 0;
  // Other shards load the targets this one starts (listen where they reach it).
  virtual bool serves_others() const { return false; }
  // Started: the target of trial `seq` is up on `port`: the instant (wall ns) every shard's
  // load starts, 0 for "now" (the followers are told).
  virtual Result<int64_t> Started(uint64_t /*seq*/, uint16_t /*port*/,
                                  std::string_view /*roots_pem*/,
                                  const std::vector<std::string>& /*netns*/) {
    return int64_t{0};
  }
  // Loaded: this shard's load of trial `seq` is over; waits (until `deadline`) for the other
  // shards' before the target is stopped. A lost shard stops the study after this trial.
  virtual Others Loaded(uint64_t /*seq*/, Nanos /*deadline*/) { return {}; }
  // lost: why shards were lost (the run's loop ends), "" while none was.
  virtual const std::string& lost() const { return none_lost_; }
  // Failed: this shard could not measure the trial: its arm failed here (`why`); the followers
  // hear SKIP (never again of that arm), shard 0 hears DONE.
  virtual Status Failed(const NextTrial& /*next*/, std::string_view /*why*/) { return {}; }
  // Abandon: this shard stops before measuring the trial (interrupted, no room for it): shard
  // 0 hears DONE so it does not wait; a leader's followers hear END or STOP from Finish.
  virtual Status Abandon(const NextTrial& /*next*/) { return {}; }
  // Measured: this shard measured trial `seq` (valid or not), before it is stored.
  virtual Status Measured(uint64_t seq, bool valid) = 0;
  // Finish: the run's loop is over (the followers hear END, or STOP when shards were lost).
  virtual void Finish() {}

 private:
  std::string none_lost_;
};

// TrialWait: how long a shard waits for the next announcement or for the others to finish
// one trial: the trial itself, a drain, and time for a target to start and a trial of a
// million connections to be written.
Nanos TrialWait(const ArmSettings& s);

// Each barrier keeps a reference to `plan`, which must outlive it.
// SoloBarrier: an unsharded run over `plan`, `done` the trials already stored (a resume).
std::unique_ptr<TrialBarrier> SoloBarrier(const Plan& plan, std::set<uint32_t> done);
// LeaderBarrier: shard 0, once every other shard has joined `leader`.
std::unique_ptr<TrialBarrier> LeaderBarrier(const Plan& plan, Leader leader);
// FollowerBarrier: a shard other than 0, joined to shard 0 by `follower`; `log` says when
// shard 0 stopped the study.
std::unique_ptr<TrialBarrier> FollowerBarrier(const Plan& plan, Follower follower, std::FILE* log);

}  // namespace pqc::scenario
