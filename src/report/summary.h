// summary — the study summary as typed records (docs/summary-json.md, schema
// "pqc-bench/summary/1"): what study_summary.cc computes once from a stored run, what every
// reporter reads, and what summary.json holds. A number that cannot be computed is an empty
// optional, written as null, never 0. The JSON form is produced and read by summary_json.h
// alone, so that a reporter never looks a field up by its name.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/summary.h"
#include "results/run_record.h"
#include "results/trial_record.h"
#include "stats/statistic.h"

namespace pqc::report {

inline constexpr std::string_view kSummarySchema = "pqc-bench/summary/2";
// kSummarySchemaOne: the schema before intervals were over trials; still read (its intervals
// were over connections, run.replicate says "connection", and the later fields are absent).
inline constexpr std::string_view kSummarySchemaOne = "pqc-bench/summary/1";

// Finite: `v`, or nothing when it is NaN or infinite (what the statistics return for a number
// they cannot compute).
inline std::optional<double> Finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// Bounds: an interval at run.confidence, written [lo, hi]; either end null when too few
// samples support it.
struct Bounds {
  std::optional<double> lo, hi;
};

// FiniteBounds: [lo, hi] with each end Finite.
inline Bounds FiniteBounds(double lo, double hi) {
  return {Finite(lo), Finite(hi)};
}

struct RunFacts {
  std::string dir, scenario, scenario_file, title, tool_version, git_commit, openssl_version,
      cpu_model;
  uint64_t cores = 0;
  std::string kernel, hostname, started;
  std::optional<std::string> ended;  // empty while running
  bool complete = false;
  std::string target, network;
  uint64_t seed = 0;
  bool full = false;
  uint64_t trials_planned = 0, trials_done = 0;
  double confidence = 0.95;
  int64_t resamples = 0;
  // replicate: what the intervals treat as independent — "trial" (every interval over trials
  // or blocks, docs/methodology.md) or, in schema-1 documents, "connection".
  std::string replicate = "trial";
  // resolve_pct: the difference, in % of the baseline, each comparison's plan resolves.
  double resolve_pct = 2;
};

// StatisticBounds: one interval per statistic of a phase (the "ci" object).
struct StatisticBounds {
  Bounds mean, p50, p95, p99;
};

// VarianceSplit: how one statistic's variance divides between trials and their connections
// (stats/variance_components.h), as standard deviations of one trial's value in µs.
struct VarianceSplit {
  std::optional<double> between_sd, within_sd, design_effect, icc, effective_connections;
  bool trials_disagree = false;
};

struct StatisticVariance {
  VarianceSplit mean, p50, p95, p99;
};

// TrialSpread: the lowest and highest per-trial p50 and p99.
struct SpreadBounds {
  Bounds p50, p99;
};

struct SpectrumPoint {
  double q = 0;
  std::optional<double> us;
};

// PhaseSummary: one phase's latencies in µs, pooled over the trials an arm's numbers use.
struct PhaseSummary {
  uint64_t count = 0;
  std::optional<double> min, mean, p50, p95, p99, max;
  StatisticBounds ci;
  SpreadBounds trial_spread;
  std::vector<SpectrumPoint> spectrum;
  std::optional<StatisticVariance> variance;  // null with fewer than two trials
};

struct TrialCounts {
  uint64_t planned = 0, done = 0, valid = 0;
};

// WireBytes: means per handshake, in bytes (segments for the last).
struct WireBytes {
  std::optional<double> handshake_written, handshake_read, client_hello, server_hello, certificate,
      certificate_verify, server_first_flight, server_first_flight_segments;
};

struct CpuCosts {
  std::optional<double> server_us_per_handshake, client_us_per_connection, floor_server_us,
      floor_client_us, server_floor_ratio, client_floor_ratio;
};

struct OutlierSummary {
  uint64_t trial = 0, seq = 0;
  std::string phase, statistic;
  std::optional<double> value, others_median;
  std::string reason;
};

// SitePhase: one phase's latencies, in µs, of the connections from one client site.
struct SitePhase {
  uint64_t count = 0;
  std::optional<double> mean, p50, p95, p99;
};

// SiteSummary: an arm's connections from one client site of a network of several (the
// original study's regions, in one trial), pooled over the trials the arm's numbers use. The
// round trips are the phase's p50 over the site's RTT: a fresh TLS 1.3 handshake whose server
// flight fits the initial window is 1, as is TCP's connect.
struct SiteSummary {
  uint64_t site = 0;  // index in the network's sites (connections.site)
  std::string name;
  std::optional<double> rtt_ms;
  uint64_t connections = 0, errors = 0;
  std::optional<SitePhase> connect, handshake, ttfb, total;
  std::optional<double> connect_round_trips, handshake_round_trips;
};

// ArmOutcome: how an arm came out of the run: measured with valid trials, measured only with
// invalid ones (its numbers are shown, marked), or not measurable here (the reason in
// `failure`). Stored as "ok" | "invalid" | "failed".
enum class ArmOutcome { kOk, kInvalid, kFailed };
std::string_view ArmOutcomeName(ArmOutcome o);
std::optional<ArmOutcome> ParseArmOutcome(std::string_view text);

struct ArmSummary {
  uint64_t id = 0;
  std::string label;
  // factors: the arm's echo of its settings and matrix factors. Its keys come from the
  // scenario's setting keys, which the summary does not own, so it stays a JSON object;
  // FactorText reads it.
  nlohmann::ordered_json factors = nlohmann::ordered_json::object();
  std::optional<double> rtt_ms;
  std::optional<uint64_t> payload_bytes;
  double rate = 0;
  ArmOutcome status = ArmOutcome::kOk;
  std::optional<std::string> failure;
  TrialCounts trials;
  bool from_invalid_trials = false;
  uint64_t connections = 0, errors = 0;
  std::array<std::optional<PhaseSummary>, kAllPhases.size()> phases;  // indexed by Phase
  WireBytes bytes;
  CpuCosts cpu;
  std::vector<OutlierSummary> outliers;
  // sites: one entry per client site when the arm's network has several (else empty, and
  // absent from summary.json: a later addition to schema 1 that leaves other arms as they were).
  std::vector<SiteSummary> sites;

  const PhaseSummary* phase(Phase p) const {
    const auto& s = phases[static_cast<size_t>(p)];
    return s ? &*s : nullptr;
  }
  // Name: the label, or "arm <id>" when it has none.
  std::string Name() const;
  // FactorText: factors[key] as text (a number or bool as JSON), or `fallback` when absent.
  std::string FactorText(std::string_view key, std::string_view fallback = "") const;
};

// TrialPlanSummary: the trials (per arm) of `duration_s` that would resolve ±resolve_us with
// 95 % confidence and 80 % power, from this run's variance components (stats/trial_plan.h).
struct TrialPlanSummary {
  double resolve_us = 0;
  uint64_t trials = 0;
  double duration_s = 0;
  double total_s = 0;  // per arm, warm-up and restarts included
};

struct Difference {
  std::optional<double> estimate, lo, hi;
  bool detectable = false;
  std::string verdict;
  // replicates: the blocks (trials, runs) the interval is over; plan: null where not computed
  // (comparisons across runs) or out of reach.
  uint64_t replicates = 0;
  std::optional<TrialPlanSummary> plan;
};

struct StatisticDifferences {
  Difference mean, p50, p95, p99;
};

// OfStatistic: the member of a per-statistic record (StatisticBounds, StatisticDifferences)
// that holds `stat`.
template <class PerStatistic>
auto& OfStatistic(PerStatistic& per_statistic, Statistic stat) {
  switch (stat) {
    case Statistic::kMean:
      return per_statistic.mean;
    case Statistic::kP50:
      return per_statistic.p50;
    case Statistic::kP95:
      return per_statistic.p95;
    case Statistic::kP99:
      break;
  }
  return per_statistic.p99;
}

struct Comparison {
  std::string phase;
  bool from_invalid_trials = false;
  std::string factor;
  uint64_t baseline = 0, arm = 0;
  std::string from, to;
  StatisticDifferences diffs;
  // control: the two arms' settings are identical (an A/A pair, e.g. a `copy` factor): any
  // difference found is the method's or the machine's, not the arms'.
  bool control = false;
};

struct ServerCpuSummary {
  std::optional<double> mean;
  Bounds ci;
  std::vector<std::optional<double>> per_trial;
};

struct Estimate {
  std::optional<double> estimate;
  Bounds ci;
};

struct MoreCpu {
  std::optional<double> estimate;
  Bounds ci;
  int64_t paired_blocks = 0;
};

struct CapacityArmSummary {
  uint64_t arm = 0;
  std::string label, target;
  int64_t trials = 0;
  bool from_invalid_trials = false;
  ServerCpuSummary server_us_per_handshake;
  Estimate handshakes_per_core_s;
  std::optional<double> server_busy, floor_server_us, floor_ratio;
  std::optional<uint64_t> baseline;
  std::optional<std::string> baseline_label;
  std::optional<MoreCpu> more_cpu_pct;  // null without a classical baseline
  std::string line;
};

struct CapacitySummary {
  std::string basis;
  double confidence = 0.95;
  std::vector<CapacityArmSummary> arms;
};

struct TrialSummary {
  uint64_t arm = 0, index = 0, block = 0, seq = 0;
  bool valid = false, interrupted = false;
  std::vector<std::string> reasons;
  std::string started;
  std::optional<double> handshake_p50, handshake_p99, server_cpu_us_per_handshake;
  // build: the binary that measured it, when the study's arms are builds (null otherwise).
  std::optional<results::BuildRecord> build;
};

struct Summary {
  std::string schema = std::string(kSummarySchema);
  RunFacts run;
  std::vector<std::string> factors;  // those that vary between arms, in the scenario's order
  std::vector<ArmSummary> arms;
  std::vector<Comparison> comparisons;
  CapacitySummary capacity;
  std::vector<TrialSummary> trials;
  // stop: how a study that stopped itself ended (none, and absent from summary.json, for a
  // study of fixed size).
  std::optional<results::StopRecord> stop;
};

}  // namespace pqc::report
