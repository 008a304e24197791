// trial_plan — how many trials, of what length, an answer needs. From a study's own variance
// components (variance_components.h) of a difference paired by block: one block's difference
// varies by between + within · (duration / D') when its trials last D'; over T' blocks the
// estimate's variance is that / T', and a difference δ is resolved with confidence 1 − α and
// power 1 − β when (t_{1−α/2, T'−1} + t_{1−β, T'−1}) · √variance ≤ δ (the usual sample-size
// rule of a paired t test). Among trial lengths from 1 s to 5 minutes, the plan is the one that
// needs the least time in all, counting each trial's fixed cost (warm-up, target restart):
// when the trials disagree, many short trials win; when they do not, longer ones cost less
// overhead. Kalibera & Jones choose repetitions per level the same way; none of the tools
// that anchor this one tells its user the number.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace pqc {

struct TrialPlanInput {
  double between = 0;        // variance one block adds beyond its connections' sampling
  double within = 0;         // one block's sampling variance at `duration_s`
  double duration_s = 0;     // the measured length those were observed at (> 0)
  double overhead_s = 0;     // fixed cost of a trial beyond its measured phase (≥ 0)
  double resolve = 0;        // the difference to resolve, in the statistic's unit (> 0)
  double confidence = 0.95;  // two-sided
  // power: 0.5 asks for precision alone — the interval's half-width within `resolve` (the
  // t_{1−β} term is 0), what a study that stops itself asks of each question (stopping_rule.h).
  double power = 0.8;
};

struct TrialPlan {
  uint64_t trials = 0;  // blocks (trials per arm)
  double duration_s = 0;
  double total_s = 0;  // trials × (duration + overhead), per arm
};

// kPlannedDurations: the trial lengths (seconds) a plan chooses among.
inline constexpr std::array kPlannedDurations = {1.0,  2.0,  5.0,   10.0, 20.0,
                                                 30.0, 60.0, 120.0, 300.0};

// kMaxPlannedTrials: beyond this the answer is "not within reach", not a number.
inline constexpr uint64_t kMaxPlannedTrials = 1000;

// PlanTrials: the cheapest plan, or nullopt when the input is invalid (non-finite, negative
// variances, duration or resolve ≤ 0) or no plan of up to kMaxPlannedTrials trials resolves it.
std::optional<TrialPlan> PlanTrials(const TrialPlanInput& input);

// TrialsAt: the least number of blocks whose trials last `duration_s` that resolve the input,
// or nullopt when the input or duration is invalid or more than kMaxPlannedTrials are needed.
// For a study whose trial length is already chosen (it cannot change without mixing lengths).
std::optional<uint64_t> TrialsAt(const TrialPlanInput& input, double duration_s);

}  // namespace pqc
