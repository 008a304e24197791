// runner — runs a plan: for every trial in its interleaved order, the target is started with
// the arm's server configuration (on the arm's network), the load generator runs the arm,
// the target is stopped, and the trial is written to the results database before the next
// one begins. Restarting the target per trial keeps arms independent (no session cache or
// allocator state carried from one arm into the next). Arms that cannot run (an SLH-DSA
// certificate over TLS) are recorded as failed with the reason, and the run goes on.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "core/shard.h"
#include "net/address.h"
#include "results/run_record.h"
#include "scenario/plan.h"
#include "scenario/rendezvous_auth.h"
#include "scenario/scenario.h"

namespace pqc::scenario {

struct RunOptions {
  std::string results_root = "results";  // a new run goes to <root>/<UTC time>-<scenario>/
  std::string resume_dir;                // non-empty: continue this run instead
  std::string self_exe;                  // this pqc-bench, started as the embedded target
  std::string nginx_exe;                 // for target = "nginx"
  std::string haproxy_exe;               // for target = "haproxy"
  results::RunAsked options;             // how the run was asked for (stored)
  std::FILE* log = stderr;               // one line per trial, and load's progress line
  // Shards (issue 18): this process measures shard `shard` of the study; shard 0 leads at
  // `rendezvous` (starts the targets on `serve_host`, announces each trial's start), the
  // others join it. A shard's load starting later than `max_start_late` past the agreed
  // instant invalidates that shard's trial.
  ShardSpec shard;
  std::optional<SocketAddress> rendezvous;
  std::optional<RendezvousKey> rendezvous_key;  // none: the rendezvous is on loopback
  std::string serve_host = "127.0.0.1";
  // serve_host with port 0: where a follower loads shard 0's targets (unset: the rendezvous
  // host).
  SocketAddress serve_address;
  Nanos rendezvous_timeout = 120'000'000'000;
  Nanos start_margin = 300'000'000;  // announce → start: every shard has read it by then
  Nanos max_start_late = 10'000'000;
};

struct RunOutcome {
  std::string dir;
  bool complete = false;     // every planned trial is in the database
  bool interrupted = false;  // stopped by SIGINT/SIGTERM
  // Not empty: a sharded study stopped before its plan's end, and why (a shard was lost: the
  // others alone would load the target with less than the plan).
  std::string stopped;
  uint32_t trials_run = 0;  // by this invocation
  uint32_t trials_invalid = 0;
  uint32_t arms_failed = 0;
};

Result<RunOutcome> RunPlan(const Scenario& scenario, const Plan& plan, const RunOptions& options);

}  // namespace pqc::scenario
