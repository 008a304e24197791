// runner — runs a plan: for every trial in its interleaved order, the target is started with
// the arm's server configuration (on the arm's network), the load generator runs the arm,
// the target is stopped, and the trial is written to the results database before the next
// one begins. Restarting the target per trial keeps arms independent (no session cache or
// allocator state carried from one arm into the next). Arms that cannot run (an SLH-DSA
// certificate over TLS) are recorded as failed with the reason, and the run goes on.
#pragma once

#include "core/error.h"
#include "scenario/plan.h"
#include "scenario/run_options.h"
#include "scenario/scenario.h"

namespace pqc::scenario {

Result<RunOutcome> RunPlan(const Scenario& scenario, const Plan& plan, const RunOptions& options);

}  // namespace pqc::scenario
