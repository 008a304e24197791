// study_summary — a stored run turned into the one summary every reporter prints (summary.h;
// as a document, schema "pqc-bench/summary/2", see docs/summary-json.md): per arm and phase,
// percentiles pooled over the valid trials' raw connections with intervals over trials
// (stats/trial_jackknife.h), how the variance splits between trials and connections, and the
// spread between trials; outlier trials flagged; and for each pair of arms that differ in one
// factor, the difference paired by block with its interval, a verdict and the trials that
// would resolve ±resolve_pct. All statistics happen here, once, so the
// terminal table, Markdown, CSV, JSON and HTML can never disagree.
#pragma once

#include <span>
#include <vector>

#include "core/error.h"
#include "report/arm_samples.h"
#include "report/summary.h"
#include "results/run_reader.h"
#include "results/sqlite_db.h"

namespace pqc::report {

struct SummaryOptions {
  int resamples = 1000;  // bootstrap resamples of the connections-only variance
  double confidence = 0.95;
  double resolve_pct = 2;  // each comparison's plan resolves this % of the baseline
};

// SpectrumOf: the latency spectrum of sorted samples — percentiles on a grid dense in the
// tail (p50 … p99.99, the maximum), a tail percentile only where a sample lies beyond it.
std::vector<SpectrumPoint> SpectrumOf(std::span<const double> sorted);

// FactsOfRun: the run's facts as the summary states them (machine, OpenSSL, tool, target,
// networks, completeness).
RunFacts FactsOfRun(const results::StoredRun& run, const SummaryOptions& options = {});

// BuildStudySummary: `loaded` holds trials the caller has in memory already (see PoolArms).
Result<Summary> BuildStudySummary(results::Db& db, const results::StoredRun& run,
                                  const SummaryOptions& options = {},
                                  const LoadedTrials* loaded = nullptr);

}  // namespace pqc::report
