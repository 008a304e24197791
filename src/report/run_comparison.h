// run_comparison — two or more stored runs of the same arms, side by side: arms matched by
// their factors (never by position), each phase's mean, p50, p95 and p99 in every run, and the
// difference from the baseline run with a bootstrap interval and the verdict `report` words it
// with. The runs are independent: each run's trials are its replicates (trial_jackknife.h),
// the two runs' variances added (Welch), so drift between the runs themselves is not in the
// interval — unless each side holds several runs (`against`): then the run is a level of the
// model, trials within runs (stats/run_difference.h), and the drift between runs is in it. What
// else differs between the runs — their machine and OpenSSL facts, their scenario text, an arm's
// stored settings — is listed, never hidden, and so are the arms one run has and another lacks.
// Regression gates (gate.h) are evaluated on the same differences.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/gate.h"
#include "report/summary.h"

namespace pqc::report {

struct CompareOptions {
  size_t baseline = 0;  // index into the runs
  // against: a second side of several runs. When given, the runs are one side (the baseline)
  // and these the other; each side's arms pool their runs, and every interval's replicate is
  // the run, so the variance between runs is in it (with one run per side it cannot be).
  std::vector<std::string> against;
  int resamples = 1000;
  double confidence = 0.95;
  std::vector<Gate> gates;
};

// ComparedRun: one run's facts as its summary states them, where it was read from, and a
// digest of its scenario text (two runs of "the same study" may have edited it).
struct ComparedRun {
  std::string path, scenario_sha256;
  RunFacts facts;
};

struct StatisticVersus {
  Statistic statistic = Statistic::kP50;
  std::optional<double> baseline_us, other_us;
  Difference difference;  // other − baseline, µs
  // Each side's design effect (stats/variance_components.h): how many times its variance over
  // trials (or runs) exceeds what its connections alone would give; null with one replicate.
  std::optional<double> baseline_design_effect, other_design_effect;
};

struct PhaseVersus {
  Phase phase = Phase::kHandshake;
  std::vector<StatisticVersus> statistics;  // mean, p50, p95, p99
};

// MessageVersus: a handshake message's mean size in both runs (bytes).
struct MessageVersus {
  std::string message;
  std::optional<double> baseline, other;
};

// CpuVersus: CPU per handshake of the server (its own rusage / its handshakes) or of the load
// generator per connection, in µs, one value per trial in each run: the means, and their
// difference with a Welch t interval over the two runs' trials (independent, so unpaired).
struct CpuVersus {
  std::string what;  // "server CPU per handshake" | "client CPU per connection"
  std::optional<double> baseline_us, other_us, relative_pct;  // pct: estimate / baseline
  int baseline_trials = 0, other_trials = 0;
  Difference difference;  // µs; verdict in µs
};

// ArmVersus: one matched arm of one run against the same arm of the baseline run.
struct ArmVersus {
  size_t run = 0;
  uint64_t baseline_arm = 0, arm = 0;
  bool from_invalid_trials = false;  // either side has no valid trial (numbers marked)
  std::vector<PhaseVersus> phases;
  std::vector<MessageVersus> bytes;
  std::vector<CpuVersus> cpu;
  std::vector<std::string> setting_differences;  // "duration: 8s vs 20s"
};

// RunSpectra: one run's latency spectra of the arm, per phase (empty where not measured),
// for the page's overlaid spectra.
struct RunSpectra {
  size_t run = 0;
  std::array<std::vector<SpectrumPoint>, kAllPhases.size()> phases;
};

struct MatchedArm {
  std::string label;                // the baseline run's
  std::string factors;              // the matching key, as JSON
  std::vector<ArmVersus> versus;    // one per other run that has the arm
  std::vector<RunSpectra> spectra;  // the baseline's first, then each run in `versus`
};

struct UnmatchedArm {
  size_t run = 0;
  std::string label, factors;
};

struct GateResult {
  std::string gate, arm;
  size_t run = 0;
  std::optional<double> baseline_us, threshold_us;
  Difference difference;
  bool failed = false;
  // cannot_judge: the difference has an estimate but no interval (one trial per run, or one
  // block), so the gate can neither pass nor fail it; compare exits 5 then.
  bool cannot_judge = false;
};

struct RunComparison {
  std::vector<ComparedRun> runs;
  size_t baseline = 0;
  double confidence = 0.95;
  // replicate: what the intervals are over — "trial" (each run's), or "run" (sides of several).
  std::string replicate = "trial";
  std::vector<std::string> facts_that_differ;  // "cpu_model: A vs B" (baseline vs run k)
  std::vector<MatchedArm> arms;                // in the baseline run's order
  std::vector<UnmatchedArm> only_in_one;
  std::vector<GateResult> gates;
  bool any_gate_failed() const;
  bool any_gate_cannot_judge() const;
};

// CompareRuns: `paths` are run directories or results.sqlite files (at least two, or at least
// one on each side with `against`).
Result<RunComparison> CompareRuns(const std::vector<std::string>& paths,
                                  const CompareOptions& options);

}  // namespace pqc::report
