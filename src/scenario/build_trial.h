// build_trial — one trial of an arm measured by another build of the tool ([builds.NAME]
// pqc_bench, builds.h). That binary runs the trial as a run of its own — the same scenario
// text, `--only` the arm's factor values, `--trials 1`, `--as-build NAME` — with its OpenSSL,
// its load client and its embedded server, into the trial's directory; the trial it stored is
// read back (the rows as that build's load generator wrote them) and becomes this run's trial.
// So every number of the arm is the other build's, and the runner interleaves and pairs it
// with the other arms by block like any trial.
#pragma once

#include <string>

#include "core/error.h"
#include "scenario/builds.h"
#include "scenario/plan.h"
#include "scenario/run_options.h"
#include "scenario/trial_executor.h"

namespace pqc::scenario {

// BuildRunArgs: the other build's command line for `arm` (argv[0] its binary); `scenario_file`
// is the run's copy of the scenario text, `work` the trial's directory. An error when the arm
// cannot be named to it (a factor value holding ',', which --only splits on).
Result<std::vector<std::string>> BuildRunArgs(const RunOptions& o, const Arm& arm,
                                              const Build& build, const std::string& scenario_file,
                                              const std::string& work);

// RunTrialInBuild: runs the arm's trial with `build` and reads it back; the row's arm, block
// and seq are `t`'s, its target record names the build that measured it. An error (the
// other build's own message and the end of its output) when it stored no trial: the arm
// cannot run with that build. A stop signal (Ctrl-C) is passed on to it; the signal stays
// pending for the runner, which then stops as after any interrupted trial. The row's build
// record lacks the binary's hash (the caller adds it, computed once per run).
Result<TrialOutput> RunTrialInBuild(const RunOptions& o, const Arm& arm, const PlannedTrial& t,
                                    const Build& build, const std::string& scenario_file,
                                    const std::string& work);

}  // namespace pqc::scenario
