// stopping_rule_bench — what deciding after a block costs a study that stops itself
// (stats/stopping_rule.h), against the block's own time: two arms, two phases (handshake and
// total), the default questions (p50 and p99 of each phase, ±2 % and ±10 % of the baseline),
// 10^6 connections per arm after the last of 10 blocks (`bench_stopping_rule CONNECTIONS
// BLOCKS`). Timed apart: Decide — every question's interval and the stop/continue outcome,
// the target, under 1 % of a block of 2 arms × 2 s trials — and, before it, pooling the new
// block's trials into each arm's prepared samples (PooledSamples::AddTrial, as a runner keeps
// them: the new trials' sort and one merge), which any report of the block pays too. A
// benchmark, not a test: it reports, and exits 1 only if the target is missed.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <random>
#include <vector>

#include "core/clock.h"
#include "stats/pooled_samples.h"
#include "stats/stopping_rule.h"

namespace {

constexpr size_t kArms = 2, kPhases = 2;
constexpr double kBlockSeconds = kArms * 2.0;

// Trial: `n` lognormal latencies (µs) of one arm, phase and block, with a trial effect of 10 %.
std::vector<double> Trial(size_t n, double mu, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0, 1);
  const double effect = 0.1 * z(rng);
  std::vector<double> v(n);
  for (double& x : v) x = mu * std::exp(effect + 0.3 * z(rng));
  return v;
}

double Seconds(pqc::Nanos from) {
  return static_cast<double>(pqc::MonotonicNow() - from) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t per_arm = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  const size_t blocks = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10;
  if (blocks < 4 || per_arm < blocks) {
    fmt::print(stderr, "usage: bench_stopping_rule [CONNECTIONS ≥ BLOCKS] [BLOCKS ≥ 4]\n");
    return 2;
  }
  const size_t per_trial = per_arm / blocks;
  const std::array<double, kArms> levels = {1000, 1150};
  const std::array<double, kPhases> phase_scale = {1.0, 1.4};  // handshake, total
  std::vector<pqc::Question> questions;
  for (size_t phase = 0; phase < kPhases; ++phase) {
    questions.push_back({.other = 1,
                         .phase = phase,
                         .statistic = pqc::Statistic::kP50,
                         .precision = {.value = 0.02}});
    questions.push_back({.other = 1,
                         .phase = phase,
                         .statistic = pqc::Statistic::kP99,
                         .precision = {.value = 0.10}});
  }
  const pqc::StoppingRule rule{.max_blocks = 40};
  // Three studies grown block by block as a runner grows them; timed after each block: its
  // trials pooled in (AddTrial) and the decision. The last block's time is the one at 10^6.
  std::vector<double> pool_s, decide_s;
  pqc::Decision decision;
  for (int round = 0; round < 3; ++round) {
    std::mt19937_64 rng(static_cast<uint64_t>(round) + 1);
    std::vector<pqc::PooledSamples> series(kArms * kPhases,
                                           pqc::PooledSamples(pqc::TrialSamples{}));
    std::vector<uint64_t> units;
    for (size_t b = 0; b < blocks; ++b) {
      std::vector<std::vector<double>> trials;
      for (size_t i = 0; i < series.size(); ++i) {
        trials.push_back(Trial(per_trial, levels[i / kPhases] * phase_scale[i % kPhases], rng));
      }
      units.push_back(b);
      const pqc::Nanos t0 = pqc::MonotonicNow();
      for (size_t i = 0; i < series.size(); ++i) series[i].AddTrial(trials[i]);
      const double pooled = Seconds(t0);
      const pqc::Nanos t1 = pqc::MonotonicNow();
      const pqc::Look look{.blocks = b + 1,
                           .elapsed_s = kBlockSeconds * static_cast<double>(b + 1),
                           .trial_s = 2,
                           .overhead_s = 1};
      decision = pqc::Decide(
          rule, questions,
          [&](size_t arm, size_t phase) {
            return pqc::Series{&series[arm * kPhases + phase], units};
          },
          look);
      if (b + 1 == blocks) {
        pool_s.push_back(pooled);
        decide_s.push_back(Seconds(t1));
      }
    }
  }
  std::sort(pool_s.begin(), pool_s.end());
  std::sort(decide_s.begin(), decide_s.end());
  const double pool = pool_s[pool_s.size() / 2], decide = decide_s[decide_s.size() / 2];
  const double ratio = decide / kBlockSeconds;
  fmt::print(
      "after block {} of {} connections per arm ({} arms × {} phases, {} questions), median of 3 "
      "studies: deciding {:.1f} ms = {:.2f} % of a {:.0f} s block (target < 1 %); pooling the "
      "block's trials first (their sort and merge) {:.1f} ms = {:.2f} % more; the study {}\n",
      blocks, per_arm, kArms, kPhases, questions.size(), decide * 1e3, ratio * 100, kBlockSeconds,
      pool * 1e3, pool / kBlockSeconds * 100, decision.stop() ? "stops" : "goes on");
  return ratio < 0.01 ? 0 : 1;
}
