// stop_spec_test — the [stop] section and `run --stop`: what a study that stops itself asks
// (its one-factor comparisons), its defaults, its plan (the block budget), and errors that name
// file, line and column and what would be valid.
#include "scenario/stop_spec.h"

#include <gtest/gtest.h>

#include <set>

#include "scenario/plan.h"
#include "scenario/scenario.h"
#include "scenario/study_stop.h"

namespace pqc::scenario {
namespace {

constexpr const char* kTwoByTwo = R"(
[tls]
chain = "ecdsa-p256"
[trials]
count = 3
[matrix]
group = ["X25519", "X25519MLKEM768"]
mode = ["fresh", "resume"]
)";

Result<Scenario> Parse(const std::string& text, ParseOptions options = {}) {
  return ParseScenarioText(text, "t.toml", options);
}

// WithStop: kTwoByTwo and `tail` (built by append: GCC 12 warns falsely on operator+ chains).
std::string WithStop(std::string_view tail) {
  std::string out;
  out.reserve(512);
  out.append(kTwoByTwo);
  out.append(tail);
  return out;
}

std::string ErrorOf(const std::string& text) {
  auto s = Parse(text);
  return s ? std::string("no error") : s.error().message;
}

TEST(StopSpec, WithoutStopTheStudyHasItsFixedSize) {
  auto s = Parse(kTwoByTwo);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_FALSE(s->stop.has_value());
  EXPECT_EQ(s->trials, 3u);
}

TEST(StopSpec, RunStopTakesTheDefaultsAndTheBlockBudgetIsThePlan) {
  auto s = Parse(kTwoByTwo, {.stop = true});
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE(s->stop.has_value());
  const StopSpec& stop = *s->stop;
  ASSERT_EQ(stop.precisions.size(), 2u);
  EXPECT_EQ(stop.precisions[0].first, Statistic::kP50);
  EXPECT_DOUBLE_EQ(stop.precisions[0].second.value, 0.02);
  EXPECT_EQ(stop.precisions[1].first, Statistic::kP99);
  EXPECT_DOUBLE_EQ(stop.precisions[1].second.value, 0.10);
  EXPECT_EQ(stop.phases, (std::vector<Phase>{Phase::kHandshake, Phase::kTotal}));
  EXPECT_DOUBLE_EQ(stop.rule.max_seconds, 600);
  EXPECT_EQ(stop.rule.max_blocks, 100u);
  EXPECT_TRUE(stop.choose_length) << "the trial length is chosen after the first look";
  EXPECT_EQ(s->trials, 100u) << "the plan is the block budget, not [trials] count";
  auto plan = MakePlan(*s);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->trials.size(), 400u);
  EXPECT_EQ(DescribeStop(stop),
            "p50 ±2 %, p99 ±10 % of handshake, total; every factor; within 600s or 100 blocks");
  // --trials replaces the block budget (never below the first look).
  auto t = Parse(kTwoByTwo, {.trials = 2, .stop = true});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->stop->rule.max_blocks, 4u);
  EXPECT_EQ(t->trials, 4u);
}

TEST(StopSpec, TheSectionSetsPrecisionsPhasesFactorsAndBudgets) {
  auto s = Parse(WithStop(R"(
[stop]
p99 = "15%"
p50 = "30us"
mean = "5%"
phases = ["connect", "handshake"]
factors = ["group"]
time = "5m"
blocks = 40
min_blocks = 5
confidence = 0.9
length = "fixed"
)"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  const StopSpec& stop = *s->stop;
  ASSERT_EQ(stop.precisions.size(), 3u);  // ordered mean, p50, p99 whatever the file's order
  EXPECT_EQ(stop.precisions[0].first, Statistic::kMean);
  EXPECT_EQ(stop.precisions[1].first, Statistic::kP50);
  EXPECT_EQ(stop.precisions[1].second.kind, Precision::Kind::kAbsolute);
  EXPECT_DOUBLE_EQ(stop.precisions[1].second.value, 30.0);
  EXPECT_EQ(stop.precisions[2].second.kind, Precision::Kind::kRelative);
  EXPECT_DOUBLE_EQ(stop.precisions[2].second.value, 0.15);
  EXPECT_EQ(stop.phases, (std::vector<Phase>{Phase::kConnect, Phase::kHandshake}));
  EXPECT_EQ(stop.factors, std::vector<std::string>{"group"});
  EXPECT_DOUBLE_EQ(stop.rule.max_seconds, 300);
  EXPECT_EQ(stop.rule.max_blocks, 40u);
  EXPECT_EQ(stop.rule.min_blocks, 5u);
  EXPECT_DOUBLE_EQ(stop.rule.confidence, 0.9);
  EXPECT_FALSE(stop.choose_length);
  EXPECT_TRUE(ValidRule(stop.rule));
  EXPECT_EQ(s->trials, 40u);
}

TEST(StopSpec, QuestionsAreTheOneFactorComparisonsAgainstTheFirstValue) {
  auto s = Parse(WithStop("[stop]\np50 = \"2%\"\nphases = [\"handshake\"]\n"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto plan = MakePlan(*s);
  ASSERT_TRUE(plan.ok());
  // Arms in matrix order: 0 X25519·fresh, 1 X25519·resume, 2 hybrid·fresh, 3 hybrid·resume.
  const std::vector<AskedQuestion> q = QuestionsOf(*plan, *s->stop);
  ASSERT_EQ(q.size(), 4u);
  std::set<std::pair<size_t, size_t>> pairs;
  for (const AskedQuestion& a : q) {
    pairs.insert({a.question.baseline, a.question.other});
    EXPECT_EQ(a.question.statistic, Statistic::kP50);
    EXPECT_EQ(a.question.phase, static_cast<size_t>(Phase::kHandshake));
  }
  EXPECT_EQ(pairs, (std::set<std::pair<size_t, size_t>>{{0, 2}, {1, 3}, {0, 1}, {2, 3}}));
  EXPECT_EQ(q[0].text, "handshake p50, X25519MLKEM768 − X25519 (group; fresh)");
  EXPECT_EQ(q[0].factor, "group");
  // Restricted to one factor, and never a pair that differs in two.
  auto g = Parse(WithStop("[stop]\nfactors = [\"mode\"]\n"));
  ASSERT_TRUE(g.ok()) << g.error().message;
  auto gp = MakePlan(*g);
  ASSERT_TRUE(gp.ok());
  const std::vector<AskedQuestion> m = QuestionsOf(*gp, *g->stop);
  ASSERT_EQ(m.size(), 8u);  // 2 pairs × 2 phases × 2 statistics
  for (const AskedQuestion& a : m) {
    EXPECT_EQ(a.factor, "mode");
    EXPECT_EQ(a.question.other, a.question.baseline + 1) << a.text;
  }
}

TEST(StopSpec, BadStopSectionsNameTheirPlaceAndWhatIsValid) {
  const std::string unknown = ErrorOf(WithStop("[stop]\np90 = \"2%\"\n"));
  EXPECT_NE(unknown.find("t.toml:10:"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("unknown key 'p90' in [stop]"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("p50, p95, p99, mean"), std::string::npos) << unknown;
  for (const char* bad : {"\"two\"", "\"0%\"", "\"-3us\"", "2", "\"\"", "\"5\""}) {
    std::string tail = "[stop]\np50 = ";
    tail.append(bad);
    tail.append("\n");
    const std::string e = ErrorOf(WithStop(tail));
    EXPECT_NE(e.find("t.toml:10:"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("(\"2%\") or a time (\"30us\")"), std::string::npos) << bad << ": " << e;
  }
  const std::string phase = ErrorOf(WithStop("[stop]\nphases = [\"handshake\", \"tffb\"]\n"));
  EXPECT_NE(phase.find("unknown phase 'tffb'"), std::string::npos) << phase;
  EXPECT_NE(phase.find("connect, handshake, ttfb, response, total"), std::string::npos) << phase;
  const std::string factor = ErrorOf(WithStop("[stop]\nfactors = [\"grup\"]\n"));
  EXPECT_NE(factor.find("t.toml:10:"), std::string::npos) << factor;
  EXPECT_NE(factor.find("'grup' is not a factor of the matrix (valid: group, mode)"),
            std::string::npos)
      << factor;
  const std::string budget = ErrorOf(WithStop("[stop]\nblocks = 4\nmin_blocks = 6\n"));
  EXPECT_NE(budget.find("blocks (4) must be at least min_blocks (6)"), std::string::npos) << budget;
  EXPECT_NE(ErrorOf(WithStop("[stop]\nmin_blocks = 2\n")).find("from 3 to 1000"),
            std::string::npos);
  EXPECT_NE(ErrorOf(WithStop("[stop]\ntime = \"soon\"\n")).find("time must be a duration"),
            std::string::npos);
  EXPECT_NE(ErrorOf(WithStop("[stop]\nconfidence = 95\n")).find("between 0.5 and 1"),
            std::string::npos);
  const std::string length = ErrorOf(WithStop("[stop]\nlength = \"1s\"\n"));
  EXPECT_NE(length.find("t.toml:10:"), std::string::npos) << length;
  EXPECT_NE(length.find("length must be \"chosen\" (the study picks its trial length after its "
                        "first blocks) or \"fixed\""),
            std::string::npos)
      << length;
  EXPECT_NE(ErrorOf(std::string("stop = 3\n").append(kTwoByTwo)).find("[stop] must be a table"),
            std::string::npos);
  EXPECT_NE(ErrorOf(WithStop("[stop]\nphases = []\n")).find("non-empty array"), std::string::npos);
  EXPECT_NE(ErrorOf(WithStop("[stop]\nfactors = [\"group\", \"group\"]\n")).find("named twice"),
            std::string::npos);
}

}  // namespace
}  // namespace pqc::scenario
