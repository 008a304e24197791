#include "stats/order_statistic_resampler.h"

#include <algorithm>
#include <cmath>

namespace pqc {

OrderStatisticResampler::OrderStatisticResampler(const PooledSamples& pooled) : pooled_(pooled) {
  const size_t n_trials = pooled.trial_count();
  for (Node* node : {&node_, &other_}) {
    node->before_lo.resize(n_trials);
    node->before_hi.resize(n_trials);
    node->draws.resize(n_trials);
  }
  before_mid_.resize(n_trials);
  left_.resize(n_trials);
}

size_t OrderStatisticResampler::Split(const Node& node, std::mt19937_64& rng) {
  mid_ = node.lo + (node.hi - node.lo) / 2;
  pooled_.CountsBefore(mid_, before_mid_);
  size_t total_left = 0;
  for (size_t t = 0; t < left_.size(); ++t) {
    const size_t m = node.draws[t];
    size_t left = 0;
    if (m > 0) {
      const size_t in_left = before_mid_[t] - node.before_lo[t];
      const size_t in_node = node.before_hi[t] - node.before_lo[t];
      if (in_left == in_node) {
        left = m;
      } else if (in_left > 0) {
        std::binomial_distribution<long long> binomial(
            static_cast<long long>(m), static_cast<double>(in_left) / static_cast<double>(in_node));
        left = static_cast<size_t>(binomial(rng));
      }
    }
    left_[t] = left;
    total_left += left;
  }
  return total_left;
}

void OrderStatisticResampler::GoLeft(Node& node) const {
  node.hi = mid_;
  std::copy(before_mid_.begin(), before_mid_.end(), node.before_hi.begin());
  std::copy(left_.begin(), left_.end(), node.draws.begin());
}

void OrderStatisticResampler::GoRight(Node& node) const {
  node.lo = mid_;
  std::copy(before_mid_.begin(), before_mid_.end(), node.before_lo.begin());
  for (size_t t = 0; t < left_.size(); ++t) node.draws[t] -= left_[t];
}

size_t OrderStatisticResampler::Descend(Node& node, size_t rank, std::mt19937_64& rng) {
  // Bounded: the range halves every step, so at most ⌈log2 N⌉ + 1 steps.
  while (node.hi - node.lo > 1) {
    const size_t left = Split(node, rng);
    if (rank < left) {
      GoLeft(node);
    } else {
      rank -= left;
      GoRight(node);
    }
  }
  return node.lo;
}

std::pair<size_t, size_t> OrderStatisticResampler::Draw(size_t rank, bool with_next,
                                                        std::mt19937_64& rng) {
  const auto sizes = pooled_.trial_sizes();
  node_.lo = 0;
  node_.hi = pooled_.size();
  std::fill(node_.before_lo.begin(), node_.before_lo.end(), 0);
  std::copy(sizes.begin(), sizes.end(), node_.before_hi.begin());
  std::copy(sizes.begin(), sizes.end(), node_.draws.begin());
  if (!with_next) {
    const size_t position = Descend(node_, rank, rng);
    return {position, position};
  }
  while (node_.hi - node_.lo > 1) {
    const size_t left = Split(node_, rng);
    if (rank + 1 < left) {
      GoLeft(node_);
    } else if (rank >= left) {
      rank -= left;
      GoRight(node_);
    } else {
      // rank == left − 1: rank is the largest draw on the left, rank + 1 the smallest on the
      // right. Both halves come from this one split, so they belong to the same resample.
      other_.lo = node_.lo;
      other_.hi = node_.hi;
      std::copy(node_.before_lo.begin(), node_.before_lo.end(), other_.before_lo.begin());
      std::copy(node_.before_hi.begin(), node_.before_hi.end(), other_.before_hi.begin());
      std::copy(node_.draws.begin(), node_.draws.end(), other_.draws.begin());
      GoLeft(node_);
      GoRight(other_);
      const size_t lower = Descend(node_, rank, rng);
      const size_t upper = Descend(other_, 0, rng);
      return {lower, upper};
    }
  }
  return {node_.lo, node_.lo};  // both ranks drew the same original sample
}

double OrderStatisticResampler::ResampledPercentile(double q, std::mt19937_64& rng) {
  const auto sorted = pooled_.sorted();
  const size_t n = sorted.size();
  q = std::clamp(q, 0.0, 1.0);
  // Type 7 on the resample (also of size n): h = (n − 1)·q, between ranks ⌊h⌋ and ⌊h⌋ + 1.
  const double h = static_cast<double>(n - 1) * q;
  const double lower = std::floor(h);
  const auto rank = static_cast<size_t>(lower);
  const double fraction = h - lower;
  const bool with_next = fraction > 0 && rank + 1 < n;
  const auto [a, b] = Draw(rank, with_next, rng);
  if (!with_next) return sorted[a];
  return sorted[a] + fraction * (sorted[b] - sorted[a]);
}

}  // namespace pqc
