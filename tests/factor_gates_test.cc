// factor_gates_test — gates on one run's own comparisons along a factor (compare RUN --factor):
// a difference whose whole interval lies beyond the threshold fails, one whose interval
// straddles it passes, one without an interval cannot judge; only the factor asked for and
// the gates' phases and statistics are judged; an unknown factor is refused with the valid ones.
#include "report/factor_gates.h"

#include <gtest/gtest.h>

namespace pqc::report {
namespace {

Gate G(const char* text) {
  auto g = ParseGate(text);
  EXPECT_TRUE(g.ok()) << text;
  return *g;
}

ArmSummary Arm(uint64_t id, const char* label, double handshake_p50) {
  ArmSummary a;
  a.id = id;
  a.label = label;
  PhaseSummary p;
  p.p50 = handshake_p50;
  p.p99 = handshake_p50 * 2;
  a.phases[static_cast<size_t>(Phase::kHandshake)] = p;
  return a;
}

Comparison Versus(uint64_t arm, const char* to, std::optional<double> lo, std::optional<double> hi,
                  const char* factor = "build") {
  Comparison c;
  c.phase = "handshake";
  c.factor = factor;
  c.baseline = 1;
  c.arm = arm;
  c.from = "main";
  c.to = to;
  c.diffs.p50 = {.estimate = lo && hi ? std::optional<double>((*lo + *hi) / 2) : 40.0,
                 .lo = lo,
                 .hi = hi,
                 .detectable = false,
                 .verdict = "v",
                 .replicates = 8,
                 .plan = std::nullopt};
  return c;
}

// A study of builds: main (1000 µs at p50), slow (+100 µs, its interval [80, 120]), same
// ([-20, 30]), one-trial (no interval), and a group comparison the gates must leave alone.
Summary Study() {
  Summary s;
  s.factors = {"build", "group"};
  s.arms = {Arm(1, "main", 1000), Arm(2, "slow", 1100), Arm(3, "same", 1005),
            Arm(4, "onetrial", 1040), Arm(5, "X25519MLKEM768", 1500)};
  s.comparisons = {Versus(2, "slow", 80, 120), Versus(3, "same", -20, 30),
                   Versus(4, "onetrial", std::nullopt, std::nullopt),
                   Versus(5, "X25519MLKEM768", 400, 600, "group")};
  return s;
}

TEST(FactorGates, AWholeIntervalBeyondTheThresholdFailsAndNoIntervalCannotJudge) {
  auto v = JudgeFactor(Study(), "build", {G("handshake.p50 > +5%")});
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_EQ(v->lines.size(), 3u);  // the group comparison is not the factor's
  EXPECT_EQ(v->lines[0].to, "slow");
  EXPECT_EQ(v->lines[0].failed, std::vector<std::string>{"handshake.p50 > +5%"});  // 80 > 50
  EXPECT_TRUE(v->lines[1].failed.empty());
  EXPECT_TRUE(v->lines[1].cannot_judge.empty());
  EXPECT_EQ(v->lines[2].cannot_judge, std::vector<std::string>{"handshake.p50 > +5%"});
  EXPECT_TRUE(v->any_failed());
  EXPECT_TRUE(v->any_cannot_judge());
  ASSERT_TRUE(v->lines[0].baseline_us.has_value());
  EXPECT_DOUBLE_EQ(*v->lines[0].baseline_us, 1000);

  // +10 %: slow's interval [80, 120] straddles 100 µs: it passes.
  auto loose = JudgeFactor(Study(), "build", {G("handshake.p50 > +10%")});
  ASSERT_TRUE(loose.ok());
  EXPECT_TRUE(loose->lines[0].failed.empty());
  EXPECT_FALSE(loose->any_failed());

  const std::string text = FactorVerdictText(*v);
  EXPECT_NE(text.find("handshake p50   slow − main"), std::string::npos) << text;
  EXPECT_NE(text.find("FAILS 'handshake.p50 > +5%'"), std::string::npos) << text;
  EXPECT_NE(text.find("CANNOT JUDGE"), std::string::npos) << text;
}

TEST(FactorGates, WithoutGatesEveryP50AndP99IsShownAndAGateOfAnotherPhaseJudgesNothing) {
  auto all = JudgeFactor(Study(), "build", {});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->lines.size(), 6u);  // three comparisons × p50, p99
  EXPECT_FALSE(all->any_failed());
  auto other = JudgeFactor(Study(), "build", {G("connect.p50 > +1%")});
  EXPECT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("no comparison along it for these gates' phases"),
            std::string::npos)
      << other.error().message;
}

TEST(FactorGates, AFactorThatDoesNotVaryIsRefusedWithTheOnesThatDo) {
  auto v = JudgeFactor(Study(), "chain", {});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("--factor chain: not a factor that varies"), std::string::npos);
  EXPECT_NE(v.error().message.find("its factors: build, group"), std::string::npos)
      << v.error().message;
}

}  // namespace
}  // namespace pqc::report
