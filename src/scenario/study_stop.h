// study_stop — a study that stops itself, during its run: the questions its [stop] section
// asks of the plan's arms, the valid trials' samples gathered as they are measured, and a look
// (stats/stopping_rule.h's Decide) before every new block. The runner asks it before each
// trial whether the blocks so far answer everything; a look costs milliseconds beside a
// block's seconds (bench/stopping_rule_bench.cc).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "records/load_result.h"
#include "results/run_record.h"
#include "scenario/plan.h"
#include "scenario/stop_spec.h"
#include "stats/stopping_rule.h"
#include "stats/trial_length.h"

namespace pqc::scenario {

// AskedQuestion: a stopping-rule question (arms as indices into Plan::arms, phases as indices
// into kAllPhases) and how it reads: "handshake p50, X25519MLKEM768 − X25519 (group; fresh)".
struct AskedQuestion {
  Question question;
  std::string factor;  // the factor that differs between the two arms
  std::string text;
};

// QuestionsOf: every one-factor comparison of the plan's arms that `spec` asks — for each
// asked factor, each pair of arms that differ in it alone, the factor's first value the
// baseline — at each asked statistic of each asked phase.
std::vector<AskedQuestion> QuestionsOf(const Plan& plan, const StopSpec& spec);

// StopVerdict: the study's decision at a look, with the questions it answers (in order).
struct StopVerdict {
  Decision decision;
  std::vector<AskedQuestion> questions;
  StoppingRule rule;
  uint64_t blocks = 0;  // of the whole run, a pilot's included
  double elapsed_s = 0;
  double trial_s = 0;         // the trials' measured length the answers rest on
  uint64_t pilot_blocks = 0;  // the blocks before the length was chosen (not pooled), or 0
  double pilot_trial_s = 0;
};

// RecordOf: the verdict as the run stores it (results/run_record.h): every question's answer —
// an answered one as estimate ± the precision asked (stopping_rule.h), an unanswered one with
// its interval and the blocks at which its judged half-width, shrinking as t(U' − 1 −
// spent)·√(U/U') with its variance per block unchanged, would come within the target.
results::StopRecord RecordOf(const StopVerdict& v, const Plan& plan, const StopSpec& spec);

class StudyStop {
 public:
  StudyStop(const Plan& plan, StopSpec spec);

  const std::vector<AskedQuestion>& questions() const { return questions_; }
  const StopSpec& spec() const { return spec_; }

  // Add: a measured trial of arm `arm_id` in `block` (its samples count only if valid).
  void Add(uint32_t arm_id, uint32_t block, bool valid, const LoadResult& load);
  // Failed: arm `arm_id` cannot run here: the questions about it are dropped (said on `log`),
  // since no block would ever answer them.
  void Failed(uint32_t arm_id, std::FILE* log);
  // Look: the decision after `blocks` complete blocks that took `elapsed_s` in all, its
  // progress line printed to `log`. After a pilot (Restart) the decision rests on the blocks
  // since, and the budgets are what is left of them.
  StopVerdict Look(uint64_t blocks, double elapsed_s, std::FILE* log);

  // ChooseLength: at the first look that does not stop the study, how it goes on (stats/
  // trial_length.h's ChooseTrialLength: the length that answers soonest within the budgets left,
  // or that comes closest when none answers), said on `log` either way; asked once. A choice to
  // stay spends a degree of freedom (RuleLeft). Never asked when [stop] length = "fixed" or the
  // arms' lengths differ. A switch is returned; the caller then calls Restart.
  std::optional<TrialLengthChoice> ChooseLength(const StopVerdict& v, std::FILE* log);
  // Restart: the study goes on with trials of `trial_s` after `pilot_blocks` blocks (of
  // `pilot_trial_s`, taking `pilot_elapsed_s`) that it no longer pools; no further choice.
  void Restart(double trial_s, uint64_t pilot_blocks, double pilot_trial_s, double pilot_elapsed_s);

 private:
  Series SeriesOf(size_t arm, size_t phase) const;
  // LookAt: the look of the study since its pilot (all of it, without one); RuleLeft: its rule,
  // the budgets less what the pilot spent, and a degree of freedom more spent after a choice
  // to stay.
  pqc::Look LookAt(uint64_t blocks, double elapsed_s) const;
  StoppingRule RuleLeft() const;
  void PrintProgress(const StopVerdict& v, std::FILE* log) const;

  const Plan& plan_;
  StopSpec spec_;
  std::vector<AskedQuestion> questions_;
  std::vector<Question> bare_;  // questions_' questions, for Decide
  // Per arm: every phase's samples of its valid trials (empty until the first), their blocks.
  struct ArmSeries {
    std::vector<std::unique_ptr<PooledSamples>> phases;
    std::vector<uint64_t> blocks;
  };
  std::vector<ArmSeries> arms_;
  PooledSamples empty_{TrialSamples{}};
  double trial_s_ = 0;     // the measured phase of a trial (the arms' longest)
  std::string fixed_why_;  // why the trial length is not chosen ("" when it may be)
  bool length_decided_ = false;
  uint64_t stayed_at_ = 0;  // the look at which the study chose to stay at its length, or 0
  uint64_t pilot_blocks_ = 0;
  double pilot_trial_s_ = 0, pilot_elapsed_s_ = 0;
  std::optional<double> pilot_overhead_s_;  // per trial, measured by the pilot
};

}  // namespace pqc::scenario
