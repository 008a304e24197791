#include "scenario/study_stop.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "records/summary.h"
#include "core/units.h"
#include "stats/student_t.h"

namespace pqc::scenario {
namespace {

std::string ValueOf(const Arm& a, const std::string& factor) {
  for (const auto& [name, value] : a.factors) {
    if (name == factor) return value;
  }
  return {};
}

// DifferOnlyIn: a and b have the same value of every factor but `factor`, where they differ.
bool DifferOnlyIn(const Arm& a, const Arm& b, const std::string& factor) {
  bool differs = false;
  for (size_t i = 0; i < a.factors.size() && i < b.factors.size(); ++i) {
    if (a.factors[i].second == b.factors[i].second) continue;
    if (a.factors[i].first != factor) return false;
    differs = true;
  }
  return differs;
}

// Varies: some arm has another value of `factor` than `value`.
bool Varies(const Plan& plan, const std::string& factor, const std::string& value) {
  return std::any_of(plan.arms.begin(), plan.arms.end(),
                     [&](const Arm& a) { return ValueOf(a, factor) != value; });
}

// AskedFactors: the spec's, or every factor with more than one value among the arms.
std::vector<std::string> AskedFactors(const Plan& plan, const StopSpec& spec) {
  if (!spec.factors.empty() || plan.arms.empty()) return spec.factors;
  std::vector<std::string> out;
  for (const auto& f : plan.arms.front().factors) {
    if (Varies(plan, f.first, f.second)) out.push_back(f.first);
  }
  return out;
}

// SettingOf: the other varying factors' values of arm a, " · "-joined (the comparison's
// setting).
std::string SettingOf(const Plan& plan, const Arm& a, const std::string& factor) {
  std::vector<std::string> out;
  for (const auto& f : a.factors) {
    if (f.first != factor && Varies(plan, f.first, f.second)) out.push_back(f.second);
  }
  return fmt::format("{}", fmt::join(out, " · "));
}

// Length: a trial length as a scenario writes it ("600ms", "2s").
std::string Length(double s) {
  return FormatDuration(std::llround(s * 1e9));
}

std::string Seconds(double s) {
  return s >= 120 ? fmt::format("{:.1f} min", s / 60) : fmt::format("{:.0f} s", s);
}

// BlocksToAnswer: the fewest blocks in all at which an unanswered question's half-width, as
// judged (t on df − spent, the variance per block unchanged), comes within its target: the
// half-width shrinks as t(U' − 1 − spent)·√(U/U') from U blocks to U'. nullopt beyond 1000.
std::optional<uint64_t> BlocksToAnswer(const Answer& a, const StoppingRule& rule) {
  const double u = static_cast<double>(a.difference.units);
  if (!(a.half_width > 0) || !(a.target > 0) || u < 2) return std::nullopt;
  const double t_now = StudentTQuantileDf(rule.confidence, std::max(1.0, u - 1 - rule.spent_df));
  for (uint64_t blocks = a.difference.units + 1; blocks <= 1000; ++blocks) {
    const double b = static_cast<double>(blocks);
    const double t = StudentTQuantileDf(rule.confidence, std::max(1.0, b - 1 - rule.spent_df));
    if (a.half_width * (t / t_now) * std::sqrt(u / b) <= a.target) return blocks;
  }
  return std::nullopt;
}

std::string_view ReasonText(StopReason r) {
  switch (r) {
    case StopReason::kContinue:
      return "continuing";
    case StopReason::kAnswered:
      return "every question answered";
    case StopReason::kBlockBudget:
      return "block budget spent";
    case StopReason::kTimeBudget:
      return "time budget spent (another block would pass it)";
    case StopReason::kInvalidRule:
      return "the stopping rule is not valid";
  }
  return "";
}

std::optional<double> Finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

std::vector<AskedQuestion> QuestionsOf(const Plan& plan, const StopSpec& spec) {
  std::vector<AskedQuestion> out;
  for (const std::string& factor : AskedFactors(plan, spec)) {
    if (plan.arms.empty()) break;
    const std::string baseline = ValueOf(plan.arms.front(), factor);
    for (size_t a = 0; a < plan.arms.size(); ++a) {
      if (ValueOf(plan.arms[a], factor) != baseline) continue;
      for (size_t b = 0; b < plan.arms.size(); ++b) {
        if (!DifferOnlyIn(plan.arms[a], plan.arms[b], factor)) continue;
        const std::string setting = SettingOf(plan, plan.arms[a], factor);
        for (Phase phase : spec.phases) {
          for (const auto& [statistic, precision] : spec.precisions) {
            AskedQuestion q;
            q.question = {.baseline = a,
                          .other = b,
                          .phase = static_cast<size_t>(phase),
                          .statistic = statistic,
                          .precision = precision};
            q.factor = factor;
            q.text = fmt::format("{} {}, {} − {} ({}{}{})", PhaseName(phase),
                                 StatisticName(statistic), ValueOf(plan.arms[b], factor), baseline,
                                 factor, setting.empty() ? "" : "; ", setting);
            out.push_back(std::move(q));
          }
        }
      }
    }
  }
  return out;
}

results::StopRecord RecordOf(const StopVerdict& v, const Plan& plan, const StopSpec& spec) {
  results::StopRecord r{.reason = std::string(ReasonText(v.decision.reason)),
                        .asked = DescribeStop(spec),
                        .blocks = v.blocks,
                        .elapsed_s = v.elapsed_s,
                        .trial_s = v.trial_s,
                        .pilot_blocks = v.pilot_blocks,
                        .pilot_trial_s = v.pilot_trial_s};
  const std::vector<Answer>& answers = v.decision.answers;
  for (size_t i = 0; i < answers.size() && i < v.questions.size(); ++i) {
    const Answer& a = answers[i];
    const Question& q = v.questions[i].question;
    const Interval& d = a.difference.interval;
    results::StopAnswer out{
        .question = v.questions[i].text,
        .factor = v.questions[i].factor,
        .phase = std::string(PhaseName(kAllPhases[q.phase])),
        .statistic = std::string(StatisticName(q.statistic)),
        .baseline_arm = q.baseline < plan.arms.size() ? plan.arms[q.baseline].id : 0,
        .other_arm = q.other < plan.arms.size() ? plan.arms[q.other].id : 0,
        .estimate = Finite(d.estimate),
        .lo = Finite(d.lo),
        .hi = Finite(d.hi),
        .half_width = Finite(a.half_width),
        .target = Finite(a.target),
        .answered = a.state == AnswerState::kAnswered,
        .blocks_to_answer = std::nullopt,
        .blocks = a.difference.units};
    if (!out.answered) out.blocks_to_answer = BlocksToAnswer(a, v.rule);
    r.answers.push_back(std::move(out));
  }
  return r;
}

StudyStop::StudyStop(const Plan& plan, StopSpec spec)
    : plan_(plan), spec_(std::move(spec)), questions_(QuestionsOf(plan, spec_)) {
  for (const AskedQuestion& q : questions_) bare_.push_back(q.question);
  arms_.resize(plan.arms.size());
  for (ArmSeries& a : arms_) {
    for (size_t p = 0; p < kAllPhases.size(); ++p) {
      a.phases.push_back(std::make_unique<PooledSamples>(TrialSamples{}));
    }
  }
  for (const Arm& a : plan.arms) {
    trial_s_ = std::max(trial_s_, static_cast<double>(a.settings.duration) / 1e9);
  }
  const bool same_length = std::all_of(plan.arms.begin(), plan.arms.end(), [&](const Arm& a) {
    return a.settings.duration == plan.arms.front().settings.duration;
  });
  if (!spec_.choose_length) {
    fixed_why_ = "[stop] length = \"fixed\"";
  } else if (!same_length) {
    fixed_why_ = "the arms' trial lengths differ";
  }
}

void StudyStop::Add(uint32_t arm_id, uint32_t block, bool valid, const LoadResult& load) {
  if (!valid || arm_id == 0 || arm_id > arms_.size()) return;
  ArmSeries& a = arms_[arm_id - 1];
  const PhaseSamples samples = MeasuredPhaseSamples(load);
  for (size_t p = 0; p < samples.size(); ++p) a.phases[p]->AddTrial(samples[p]);
  a.blocks.push_back(block);
}

void StudyStop::Failed(uint32_t arm_id, std::FILE* log) {
  const size_t arm = arm_id - 1;
  const auto about = [arm](const Question& q) { return q.baseline == arm || q.other == arm; };
  const size_t before = questions_.size();
  std::erase_if(questions_, [&](const AskedQuestion& q) { return about(q.question); });
  std::erase_if(bare_, about);
  if (questions_.size() == before) return;
  fmt::print(log, "stop: {} questions about arm '{}' dropped (it cannot run here)\n",
             before - questions_.size(), arm < plan_.arms.size() ? plan_.arms[arm].label : "?");
}

Series StudyStop::SeriesOf(size_t arm, size_t phase) const {
  if (arm >= arms_.size()) return {.samples = &empty_, .blocks = {}};
  const ArmSeries& a = arms_[arm];
  return {.samples = a.phases[phase].get(), .blocks = a.blocks};
}

pqc::Look StudyStop::LookAt(uint64_t blocks, double elapsed_s) const {
  const double arms = static_cast<double>(std::max<size_t>(1, plan_.arms.size()));
  const uint64_t own = blocks > pilot_blocks_ ? blocks - pilot_blocks_ : 0;
  const double own_s = std::max(0.0, elapsed_s - pilot_elapsed_s_);
  double overhead = 0;
  if (own > 0) {
    overhead = std::max(0.0, own_s / (static_cast<double>(own) * arms) - trial_s_);
  } else if (pilot_overhead_s_) {
    overhead = *pilot_overhead_s_;
  }
  return {.blocks = own, .elapsed_s = own_s, .trial_s = trial_s_, .overhead_s = overhead};
}

StoppingRule StudyStop::RuleLeft() const {
  StoppingRule rule = spec_.rule;
  if (rule.max_blocks > 0) rule.max_blocks -= std::min(rule.max_blocks, pilot_blocks_);
  if (rule.max_seconds > 0) rule.max_seconds = std::max(1e-3, rule.max_seconds - pilot_elapsed_s_);
  if (stayed_at_ > 0) {
    // Staying was chosen because the first blocks looked precise enough, the selection a stop
    // makes: it spends a degree of freedom too (the simulation in stopping_rule_test.cc).
    rule.spent_df += 1;
    rule.min_blocks = std::max(rule.min_blocks, stayed_at_ + 1);
  }
  return rule;
}

StopVerdict StudyStop::Look(uint64_t blocks, double elapsed_s, std::FILE* log) {
  const StoppingRule rule = RuleLeft();
  StopVerdict v{.decision = Decide(
                    rule, bare_, [this](size_t arm, size_t phase) { return SeriesOf(arm, phase); },
                    LookAt(blocks, elapsed_s)),
                .questions = questions_,
                .rule = rule,
                .blocks = blocks,
                .elapsed_s = elapsed_s,
                .trial_s = trial_s_,
                .pilot_blocks = pilot_blocks_,
                .pilot_trial_s = pilot_trial_s_};
  PrintProgress(v, log);
  return v;
}

std::optional<TrialLengthChoice> StudyStop::ChooseLength(const StopVerdict& v, std::FILE* log) {
  const pqc::Look look = LookAt(v.blocks, v.elapsed_s);
  if (length_decided_ || v.decision.stop() || look.blocks < spec_.rule.min_blocks) {
    return std::nullopt;
  }
  length_decided_ = true;
  const std::string now = Length(trial_s_);
  if (!fixed_why_.empty()) {
    fmt::print(log, "stop: the trial length stays {} ({})\n", now, fixed_why_);
    std::fflush(log);
    return std::nullopt;
  }
  const std::optional<TrialLengthChoice> c = ChooseTrialLength(
      v.decision.answers, RuleLeft(), look, std::max<size_t>(1, plan_.arms.size()));
  if (!c || !c->switches(look)) {
    stayed_at_ = look.blocks;
    std::string why = "the variances so far do not say what another length would need";
    if (c && c->answerable) {
      why = fmt::format("about {} blocks in all answer every question ({} more)", c->blocks,
                        Seconds(c->total_s));
    } else if (c) {
      why = fmt::format(
          "no length answers every question within the budget, and this one comes closest (the "
          "slowest question to about ±{:.1f}× its target by the budget's end)",
          c->reach);
    }
    fmt::print(log, "stop: the trial length stays {}: {}\n", now, why);
    std::fflush(log);
    return std::nullopt;
  }
  if (c->answerable) {
    fmt::print(log,
               "stop: trials of {} answer soonest — about {} blocks ({}) from here, against {} at "
               "{}; the {} blocks so far were a pilot: kept, not pooled\n",
               Length(c->duration_s), c->blocks, Seconds(c->total_s),
               c->stay_s ? Seconds(*c->stay_s) : std::string("more than the budget"), now,
               look.blocks);
  } else {
    fmt::print(log,
               "stop: no length answers every question within the budget; trials of {} come "
               "closest — the slowest question to about ±{:.1f}× its target in {} blocks, "
               "against ±{:.1f}× at {}; the {} blocks so far were a pilot: kept, not pooled\n",
               Length(c->duration_s), c->reach, c->blocks, c->stay_reach, now, look.blocks);
  }
  std::fflush(log);
  return c;
}

void StudyStop::Restart(double trial_s, uint64_t pilot_blocks, double pilot_trial_s,
                        double pilot_elapsed_s) {
  const double trials = static_cast<double>(pilot_blocks * std::max<size_t>(1, plan_.arms.size()));
  if (trials > 0 && pilot_elapsed_s > 0) {
    pilot_overhead_s_ = std::max(0.0, pilot_elapsed_s / trials - pilot_trial_s);
  }
  for (ArmSeries& a : arms_) {
    for (auto& p : a.phases) p = std::make_unique<PooledSamples>(TrialSamples{});
    a.blocks.clear();
  }
  trial_s_ = trial_s;
  pilot_blocks_ = pilot_blocks;
  pilot_trial_s_ = pilot_trial_s;
  pilot_elapsed_s_ = pilot_elapsed_s;
  length_decided_ = true;
}

void StudyStop::PrintProgress(const StopVerdict& v, std::FILE* log) const {
  const std::vector<Answer>& answers = v.decision.answers;
  const auto answered = std::count_if(answers.begin(), answers.end(), [](const Answer& a) {
    return a.state == AnswerState::kAnswered;
  });
  fmt::print(log, "stop: after block {} ({}): {} of {} questions answered{}\n", v.blocks,
             Seconds(v.elapsed_s), answered, answers.size(),
             v.blocks < v.pilot_blocks + spec_.rule.min_blocks
                 ? fmt::format(" (the first look is after block {})",
                               v.pilot_blocks + spec_.rule.min_blocks)
                 : "");
  // Each question's interval narrowing, the ones still open.
  for (size_t i = 0; i < answers.size(); ++i) {
    const Answer& a = answers[i];
    if (a.state == AnswerState::kAnswered) continue;
    fmt::print(log, "  {}: {}\n", questions_[i].text,
               std::isfinite(a.half_width)
                   ? fmt::format("{:+.1f} us ±{} (asked ±{})", a.difference.interval.estimate,
                                 FormatMicros(a.half_width), FormatMicros(a.target))
                   : std::string("no interval yet"));
  }
  std::fflush(log);
}

}  // namespace pqc::scenario
