// scenario_fuzz — libFuzzer target for the scenario parser and the plan built from it.
// A scenario file is user input that a run trusts for an hour: any text must end as a
// Scenario or as the project's Error (with a message), never a crash, an uncaught exception
// (libFuzzer reports std::terminate's abort as a crash) or a plan that breaks its promises.
//
// Input: the TOML text, parsed as written, again with --full (which swaps in [full]) and
// again with its first line, less a leading '#' (a TOML comment, so that the text can stay a
// valid scenario), as a `run --only` selection (FACTOR=VALUE[,VALUE…]), and as `run --stop`
// (a study that stops itself: its rule valid, its plan its block budget, its questions about
// the plan's arms), and its first line as a `run --build NAME=PATH` (every arm's build is
// "this" or one the scenario defines, with an absolute path).
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "scenario/plan.h"
#include "scenario/scenario.h"
#include "scenario/study_stop.h"
#include "split_input.h"

namespace {

using pqc::fuzz::Check;

void CheckPlan(const pqc::scenario::Scenario& s) {
  auto plan = pqc::scenario::MakePlan(s);
  if (!plan) {
    Check(!plan.error().message.empty());
    return;
  }
  const size_t arms = plan->arms.size();
  Check(arms >= 1);
  Check(plan->trials.size() == arms * s.trials);
  for (const auto& arm : plan->arms) {
    const std::string& b = arm.settings.build;
    Check(b == pqc::scenario::kThisBuild || s.builds.count(b) == 1);
  }
  for (const auto& [name, build] : s.builds) {
    Check(name == build.name && name != pqc::scenario::kThisBuild);
    Check(build.pqc_bench.empty() || build.pqc_bench.front() == '/');
  }
  // Every arm runs once per block.
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const auto& t : plan->trials) {
    Check(t.arm >= 1 && t.arm <= arms);
    Check(t.block < s.trials);
    Check(seen.insert({t.block, t.arm}).second);
  }
  if (!s.stop) return;
  Check(pqc::ValidRule(s.stop->rule));
  Check(s.trials == s.stop->rule.max_blocks);
  Check(!s.stop->precisions.empty() && !s.stop->phases.empty());
  Check(!pqc::scenario::DescribeStop(*s.stop).empty());
  for (const auto& q : pqc::scenario::QuestionsOf(*plan, *s.stop)) {
    Check(q.question.baseline < arms && q.question.other < arms);
    Check(q.question.baseline != q.question.other);
    Check(q.question.phase < pqc::kAllPhases.size());
    Check(q.question.precision.value > 0 && !q.text.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string first_line = text.substr(0, text.find('\n'));
  if (!first_line.empty() && first_line[0] == '#') first_line.erase(0, 1);
  for (int pass = 0; pass < 5; ++pass) {
    pqc::scenario::ParseOptions options;
    options.full = pass == 1;
    if (pass == 2) options.only = {first_line};
    options.stop = pass == 3;
    if (pass == 4) options.builds = {first_line};
    auto s = pqc::scenario::ParseScenarioText(text, "fuzz.toml", options);
    if (!s) {
      Check(!s.error().message.empty());
      continue;
    }
    Check(s->text == text);
    Check(s->trials >= 1 && s->trials <= 1000);
    Check(!s->title.empty());
    CheckPlan(*s);
  }
  return 0;
}
