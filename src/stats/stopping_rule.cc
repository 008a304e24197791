#include "stats/stopping_rule.h"

#include <algorithm>
#include <cmath>

#include "stats/block_differences.h"
#include "stats/variance_components.h"

namespace pqc {
namespace {

// BaselineOf: the baseline arm's pooled statistic, the reference of a relative target.
double BaselineOf(const PooledSamples& s, Statistic statistic) {
  if (statistic == Statistic::kMean) return s.mean();
  return StatisticOf(s.sorted(), statistic);
}

// IsTail: p95 and p99, whose pooled value the few trials that hold the tail make.
bool IsTail(Statistic statistic) {
  return statistic == Statistic::kP95 || statistic == Statistic::kP99;
}

}  // namespace

TrialPlanInput PlanInputOf(const Answer& a, const StoppingRule& rule, const Look& look) {
  return {.between = a.between,
          .within = a.within,
          .duration_s = look.trial_s,
          .overhead_s = look.overhead_s,
          .resolve = a.target,
          .confidence = rule.confidence,
          .power = 0.5};
}

void PlanAnswer(const StoppingRule& rule, const Look& look, Answer& a) {
  const TrialPlanInput in = PlanInputOf(a, rule, look);
  a.blocks_needed = TrialsAt(in, look.trial_s);
  a.cheapest = PlanTrials(in);
}

bool ValidRule(const StoppingRule& r) {
  return r.min_blocks >= 3 && (r.max_blocks == 0 || r.max_blocks >= r.min_blocks) &&
         r.max_seconds >= 0 && std::isfinite(r.max_seconds) && r.confidence > 0 &&
         r.confidence < 1 && r.min_tail >= 0 && r.spent_df >= 0 &&
         r.spent_df < static_cast<double>(r.min_blocks - 1);
}

Answer AnswerOf(const StoppingRule& rule, const Question& q, const Series& baseline,
                const Series& other) {
  Answer out;
  const PooledSamples& a = *baseline.samples;
  const PooledSamples& b = *other.samples;
  out.baseline = BaselineOf(a, q.statistic);
  out.target = q.precision.kind == Precision::Kind::kRelative
                   ? q.precision.value * std::abs(out.baseline)
                   : q.precision.value;
  const UnitInterval d =
      PairedDifference(a, baseline.blocks, b, other.blocks, q.statistic,
                       {.confidence = rule.confidence, .min_tail = rule.min_tail});
  out.difference = d;
  if (!std::isfinite(d.interval.lo)) return out;
  double variance = d.variance;
  if (IsTail(q.statistic)) {
    const double blocks = BlockDifferenceVariance(a, baseline.blocks, b, other.blocks, q.statistic);
    if (std::isfinite(blocks)) variance = std::max(variance, blocks);
  }
  // At least one degree of freedom: before the first look an interval is progress, not an
  // answer.
  out.difference = IntervalOf(d.interval.estimate, variance, d.floor_variance,
                              std::max(1.0, d.df - rule.spent_df), d.units, rule.confidence);
  out.half_width = (out.difference.interval.hi - out.difference.interval.lo) / 2;
  const VarianceComponents c =
      ComponentsOf(variance, d.floor_variance, d.units, a.size() + b.size(), q.statistic);
  out.between = c.between_per_trial;
  out.within = c.within_per_trial;
  if (out.half_width <= out.target) {
    out.state = AnswerState::kAnswered;
    out.difference.interval.lo = d.interval.estimate - out.target;
    out.difference.interval.hi = d.interval.estimate + out.target;
  }
  return out;
}

Decision Decide(const StoppingRule& rule, std::span<const Question> questions,
                const SeriesOf& series, const Look& look) {
  Decision out;
  if (!ValidRule(rule)) {
    out.reason = StopReason::kInvalidRule;
    return out;
  }
  bool all = true;
  for (const Question& q : questions) {
    Answer a = AnswerOf(rule, q, series(q.baseline, q.phase), series(q.other, q.phase));
    if (look.blocks < rule.min_blocks && a.state == AnswerState::kAnswered) {
      // Not a look yet: progress, with the interval as computed.
      a.state = AnswerState::kOpen;
      a.difference.interval.lo = a.difference.interval.estimate - a.half_width;
      a.difference.interval.hi = a.difference.interval.estimate + a.half_width;
    }
    all = all && a.state == AnswerState::kAnswered;
    out.answers.push_back(std::move(a));
  }
  if (look.blocks < rule.min_blocks) return out;
  const double per_block = look.blocks > 0 ? look.elapsed_s / static_cast<double>(look.blocks) : 0;
  if (all) {
    out.reason = StopReason::kAnswered;
  } else if (rule.max_blocks > 0 && look.blocks >= rule.max_blocks) {
    out.reason = StopReason::kBlockBudget;
  } else if (rule.max_seconds > 0 && look.elapsed_s + per_block > rule.max_seconds) {
    out.reason = StopReason::kTimeBudget;
  }
  if (out.stop()) {
    for (Answer& a : out.answers) {
      if (a.state != AnswerState::kOpen) continue;
      a.state = AnswerState::kUnanswered;
      PlanAnswer(rule, look, a);
    }
  }
  return out;
}

}  // namespace pqc
