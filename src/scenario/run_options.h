// run_options — how a run is asked for (where its results go, which binaries are its targets,
// its place among the shards) and what it came to: the runner's input and output, and what
// the trial executor and the barriers read of them.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/shard.h"
#include "net/address.h"
#include "results/run_record.h"
#include "scenario/rendezvous_auth.h"
#include "scenario/study_stop.h"

namespace pqc::scenario {

struct RunOptions {
  std::string results_root = "results";  // a new run goes to <root>/<UTC time>-<scenario>/
  std::string resume_dir;                // non-empty: continue this run instead
  std::string self_exe;                  // this pqc-bench, started as the embedded target
  std::string nginx_exe;                 // for target = "nginx"
  std::string haproxy_exe;               // for target = "haproxy"
  // as_build: the [builds.NAME] this process is (run --as-build, when another run started it
  // to measure that build's arm); "this" otherwise. Its arms run here, not in a child.
  std::string as_build = "this";
  results::RunAsked options;  // how the run was asked for (stored)
  std::FILE* log = stderr;    // one line per trial, and load's progress line
  // Shards (issue 18): this process measures shard `shard` of the study; shard 0 leads at
  // `rendezvous` (starts the targets on `serve_host`, announces each trial's start), the
  // others join it. A shard's load starting later than `max_start_late` past the agreed
  // instant invalidates that shard's trial.
  ShardSpec shard;
  std::optional<SocketAddress> rendezvous;
  std::optional<RendezvousKey> rendezvous_key;  // none: the rendezvous is on loopback
  // serve_host (port 0): where shard 0's targets listen and a follower loads them.
  SocketAddress serve_host = LoopbackAddress();
  Nanos rendezvous_timeout = 120'000'000'000;
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
  // stop: a study that stops itself — its last look (set when it ended by its rule or at the
  // end of its plan, not when interrupted).
  std::optional<StopVerdict> stop;
};

}  // namespace pqc::scenario
