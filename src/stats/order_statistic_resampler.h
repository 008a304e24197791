// order_statistic_resampler — draws a bootstrap resample's order statistics exactly without
// drawing the resample. Why: a naive bootstrap of a percentile resamples N values and sorts
// them, O(N log N) per resample: 10^6 samples × 1000 resamples is minutes per interval, and a
// report needs dozens. A percentile of a resample is always some original value x_(j), so it
// suffices to draw *which* j, and that needs only the sorted original.
//
// The method. Let x_(0) ≤ … ≤ x_(N−1) be the pooled sorted sample of T trials, trial t holding
// n_t of them. A stratified resample draws n_t values from trial t with replacement (see
// bootstrap.h for why stratified), i.e. multinomial counts: every sample of trial t is drawn
// with probability 1/n_t per draw. The resample's order statistic of rank r (0-based) is
// x_(j) for the position j where the running count of drawn values first exceeds r. Rather
// than draw all N counts, descend a binary split of the sorted positions: at a range [lo, hi)
// that received m_t of trial t's draws, the range [lo, mid) holds c_L of the c trial-t samples
// in [lo, hi); given m_t draws uniformly spread over those c samples, the number landing in
// [lo, mid) is Binomial(m_t, c_L / c) — independently per trial. With L = Σ_t of those, rank r
// lies in [lo, mid) if r < L, else it is rank r − L of [mid, hi). After ⌈log2 N⌉ halvings the
// range is one position: x_(j). Every step draws from the exact conditional distribution of
// the multinomial, so the result has exactly the distribution of the brute-force bootstrap's
// order statistic (tests/bootstrap_test.cc checks this against brute force and, for one trial,
// against the closed form P(rank r ≤ x_(j)) = P(Binomial(N, (j+1)/N) ≥ r + 1)). Two adjacent
// ranks (type-7 interpolation needs r and r + 1) descend together until they part, so both
// come from the same resample. Cost per resample: O(log N · (T binomial draws + kBlock)).
#pragma once

#include <cstddef>
#include <random>
#include <utility>
#include <vector>

#include "stats/pooled_samples.h"

namespace pqc {

// OrderStatisticResampler: one per thread (it holds scratch space); `pooled` must outlive it.
class OrderStatisticResampler {
 public:
  explicit OrderStatisticResampler(const PooledSamples& pooled);

  // Draw: for one fresh stratified resample, the positions in pooled.sorted() of its order
  // statistics of rank `rank` and `rank + 1` (the second equals the first when !with_next).
  // Preconditions: rank < N, and rank + 1 < N when with_next.
  std::pair<size_t, size_t> Draw(size_t rank, bool with_next, std::mt19937_64& rng);

  // ResampledPercentile: the type-7 q-quantile of one fresh stratified resample.
  // Preconditions: N ≥ 1, 0 ≤ q ≤ 1.
  double ResampledPercentile(double q, std::mt19937_64& rng);

 private:
  // A node of the descent: positions [lo, hi), the trials' counts before lo and before hi,
  // and how many of each trial's draws landed in [lo, hi).
  struct Node {
    size_t lo = 0;
    size_t hi = 0;
    std::vector<size_t> before_lo;
    std::vector<size_t> before_hi;
    std::vector<size_t> draws;
  };

  // Split: draws the per-trial counts of `node`'s draws that land in its left half (into
  // left_, with mid_ and before_mid_) and returns their total.
  size_t Split(const Node& node, std::mt19937_64& rng);
  void GoLeft(Node& node) const;
  void GoRight(Node& node) const;
  // Descend: position of rank `rank` within `node`'s draws. Precondition: rank < Σ draws.
  size_t Descend(Node& node, size_t rank, std::mt19937_64& rng);

  const PooledSamples& pooled_;
  Node node_;
  Node other_;
  size_t mid_ = 0;
  std::vector<size_t> before_mid_;
  std::vector<size_t> left_;
};

}  // namespace pqc
