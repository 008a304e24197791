// stats_bench — what a report's confidence intervals cost at the sizes a study produces: one
// arm of 10^6 connections in 3 trials, 1000 resamples. The naive bootstrap (draw and sort
// every resample) is timed at a smaller size for scale; it grows as N log N per resample,
// the exact resampler as log N.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "stats/bootstrap.h"
#include "stats/percentiles.h"
#include "stats/pooled_samples.h"
#include "stats/trial_jackknife.h"
#include "stats/trial_spread.h"

namespace pqc {
namespace {

// Arm: `n` lognormal latencies around 1.6 ms split into `trials` equal trials.
TrialSamples Arm(size_t n, size_t trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(7.4, 0.3);
  TrialSamples arm(trials);
  for (size_t i = 0; i < n; ++i) arm[i % trials].push_back(d(rng));
  return arm;
}

void BM_PoolTrials(benchmark::State& state) {
  const TrialSamples arm = Arm(static_cast<size_t>(state.range(0)), 3, 1);
  for (auto _ : state) {
    PooledSamples pooled(arm);
    benchmark::DoNotOptimize(pooled.sorted().data());
  }
}
BENCHMARK(BM_PoolTrials)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// IntervalOfPooled: StatisticInterval on a prepared arm (what a report does per statistic).
void BM_IntervalOfPooled(benchmark::State& state) {
  const PooledSamples pooled(Arm(static_cast<size_t>(state.range(0)), 3, 2));
  const auto statistic = static_cast<Statistic>(state.range(1));
  for (auto _ : state) {
    benchmark::DoNotOptimize(StatisticInterval(pooled, statistic, {}));
  }
  state.SetLabel(std::string(StatisticName(statistic)));
}
BENCHMARK(BM_IntervalOfPooled)
    ->Args({1'000'000, static_cast<int>(Statistic::kP50)})
    ->Args({1'000'000, static_cast<int>(Statistic::kP99)})
    ->Args({1'000'000, static_cast<int>(Statistic::kMean)})
    ->Unit(benchmark::kMillisecond);

// IntervalOfTrials: the convenience overload, which pools and sorts first.
void BM_IntervalOfTrials(benchmark::State& state) {
  const TrialSamples arm = Arm(static_cast<size_t>(state.range(0)), 3, 3);
  for (auto _ : state) {
    benchmark::DoNotOptimize(StatisticInterval(arm, Statistic::kP99, {}));
  }
}
BENCHMARK(BM_IntervalOfTrials)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_DifferenceOfPooled(benchmark::State& state) {
  const PooledSamples a(Arm(static_cast<size_t>(state.range(0)), 3, 4));
  const PooledSamples b(Arm(static_cast<size_t>(state.range(0)), 3, 5));
  for (auto _ : state) {
    benchmark::DoNotOptimize(DifferenceInterval(a, b, Statistic::kP99, {}));
  }
}
BENCHMARK(BM_DifferenceOfPooled)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// SpreadOfPooled: per-trial p99 read off the prepared arm (one pass, no sorting).
void BM_SpreadOfPooled(benchmark::State& state) {
  const PooledSamples pooled(Arm(static_cast<size_t>(state.range(0)), 3, 8));
  for (auto _ : state) {
    benchmark::DoNotOptimize(SpreadBetweenTrials(pooled, Statistic::kP99));
  }
}
BENCHMARK(BM_SpreadOfPooled)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// StudyIntervals: everything a report computes per phase for two arms of a study of 8 trials ×
// 10^6 connections (10^6 each after the args' split) — each arm's four intervals over trials
// (trial_jackknife.h) and the four differences paired by block — against the old
// connections-only bootstrap of the same four differences (1000 resamples).
void BM_StudyIntervalsOverTrials(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const PooledSamples a(Arm(n, 8, 11)), b(Arm(n, 8, 12));
  const std::vector<uint64_t> blocks = {0, 1, 2, 3, 4, 5, 6, 7};
  for (auto _ : state) {
    for (Statistic s : {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99}) {
      benchmark::DoNotOptimize(TrialInterval(a, blocks, s));
      benchmark::DoNotOptimize(TrialInterval(b, blocks, s));
      benchmark::DoNotOptimize(PairedDifference(a, blocks, b, blocks, s));
    }
  }
}
BENCHMARK(BM_StudyIntervalsOverTrials)
    ->Arg(1'000'000)
    ->Arg(8'000'000)
    ->Unit(benchmark::kMillisecond);

void BM_StudyIntervalsOldBootstrap(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const PooledSamples a(Arm(n, 8, 11)), b(Arm(n, 8, 12));
  for (auto _ : state) {
    for (Statistic s : {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99}) {
      benchmark::DoNotOptimize(StatisticInterval(a, s, {}));
      benchmark::DoNotOptimize(StatisticInterval(b, s, {}));
      benchmark::DoNotOptimize(DifferenceInterval(a, b, s, {}));
    }
  }
}
BENCHMARK(BM_StudyIntervalsOldBootstrap)
    ->Arg(1'000'000)
    ->Arg(8'000'000)
    ->Unit(benchmark::kMillisecond);

// NaiveBootstrap: 1000 resamples drawn value by value and sorted (stratified), for scale.
void BM_NaiveBootstrap(benchmark::State& state) {
  const TrialSamples arm = Arm(static_cast<size_t>(state.range(0)), 3, 6);
  std::mt19937_64 rng(7);
  std::vector<double> resample;
  std::vector<double> replicates;
  for (auto _ : state) {
    replicates.clear();
    for (int r = 0; r < 1000; ++r) {
      resample.clear();
      for (const auto& trial : arm) {
        std::uniform_int_distribution<size_t> pick(0, trial.size() - 1);
        for (size_t k = 0; k < trial.size(); ++k) resample.push_back(trial[pick(rng)]);
      }
      std::sort(resample.begin(), resample.end());
      replicates.push_back(Percentile(resample, 0.99));
    }
    benchmark::DoNotOptimize(replicates.data());
  }
}
BENCHMARK(BM_NaiveBootstrap)->Arg(10'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pqc

BENCHMARK_MAIN();
