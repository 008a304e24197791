// preflight — what `run` checks about the machine and the target before it creates the results
// directory or starts the first trial: each arm's worst case of open connections fits the
// file-descriptor limit (the check `load` makes too, client/fd_limit.h), and an external target
// accepts connections. Either failing mid-run would cost trials (or, for an external target
// that is not there, 15 s of waiting per arm) and end with a directory of failed arms; failing
// here costs nothing and says what to fix.
#pragma once

#include "core/error.h"
#include "scenario/plan.h"
#include "scenario/scenario.h"

namespace pqc::scenario {

// kExternalProbeTimeout: how long an external target gets to accept one connection. It is
// started by the user before the run, unlike the tool's own targets, which get kReadyTimeout.
inline constexpr Nanos kExternalProbeTimeout = 3'000'000'000;

Status Preflight(const Scenario& scenario, const Plan& plan);

}  // namespace pqc::scenario
