// compare: gates parsed and judged by their whole interval, and runs matched by their arms'
// factors, over results databases written by the real RunWriter with known latencies.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "browser_check.h"
#include "report/comparison_output.h"
#include "report/comparison_tables.h"
#include "report/gate.h"
#include "report/run_comparison.h"
#include "results/run_writer.h"

namespace pqc {
namespace {

namespace fs = std::filesystem;
using report::Gate;
using report::GateCannotJudge;
using report::GateFails;
using report::ParseGate;

TEST(Gate, ParsesPhasesStatisticsAndBothKindsOfThreshold) {
  auto rel = ParseGate("handshake.p99 > +5%");
  ASSERT_TRUE(rel) << rel.error().message;
  EXPECT_EQ(rel->phase, Phase::kHandshake);
  EXPECT_EQ(rel->statistic, Statistic::kP99);
  EXPECT_TRUE(rel->above);
  EXPECT_TRUE(rel->relative);
  EXPECT_DOUBLE_EQ(rel->threshold, 5);
  auto abs = ParseGate("connect.p50>1ms");
  ASSERT_TRUE(abs) << abs.error().message;
  EXPECT_EQ(abs->phase, Phase::kConnect);
  EXPECT_FALSE(abs->relative);
  EXPECT_DOUBLE_EQ(abs->threshold, 1000);  // µs
  auto speedup = ParseGate("total.mean < -250us");
  ASSERT_TRUE(speedup) << speedup.error().message;
  EXPECT_FALSE(speedup->above);
  EXPECT_DOUBLE_EQ(speedup->threshold, -250);
}

TEST(Gate, BadExpressionsSayWhatIsValid) {
  for (const char* bad : {"handshake.p42 > 1ms", "handshak.p50 > 1ms", "handshake > 1ms",
                          "handshake.p50 1ms", "handshake.p50 >", "handshake.p50 > 5",
                          "handshake.p50 > x%", "handshake.p50 > -5%", "total.p99 < +1ms"}) {
    SCOPED_TRACE(bad);
    auto g = ParseGate(bad);
    ASSERT_FALSE(g);
    EXPECT_NE(g.error().message.find("phases: connect, handshake, ttfb, response, total"),
              std::string::npos)
        << g.error().message;
    EXPECT_NE(g.error().message.find("statistics: mean, p50, p95, p99"), std::string::npos);
  }
}

TEST(Gate, FailsOnlyWhenTheWholeIntervalIsBeyondTheThreshold) {
  auto g = ParseGate("handshake.p50 > +10%").value();
  EXPECT_TRUE(GateFails(g, 101, 150, 1000));  // lower bound above 100 µs
  EXPECT_FALSE(GateFails(g, 99, 150, 1000));  // could be below the threshold
  EXPECT_FALSE(GateFails(g, -5, 500, 1000));  // no difference detectable: never fails
  EXPECT_FALSE(GateFails(g, std::nullopt, 500, 1000));
  EXPECT_FALSE(GateFails(g, 200, 300, std::nullopt));  // no baseline, no relative threshold
  auto s = ParseGate("total.p99 < -1ms").value();
  EXPECT_TRUE(GateFails(s, -3000, -1001, 5000));
  EXPECT_FALSE(GateFails(s, -3000, -999, 5000));
}

// Two runs written by RunWriter: each arm's connections have fixed phases, run B's handshakes
// 1 ms slower; run A has arms X25519 and X25519MLKEM768, run B X25519 and MLKEM768.
class CompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pqc-compare-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static LoadResult Load(Nanos handshake_ns, uint64_t seed) {
    LoadResult r;
    for (uint64_t i = 0; i < 400; ++i) {
      ConnectionRecord c;
      c.id = i;
      c.measured = true;
      c.intended_start = static_cast<Nanos>(1'000'000 * (i + 1));
      c.actual_start = c.intended_start;
      // connect 100-139 µs, the same in both runs; handshake spread over 40 µs too.
      const Nanos jitter = static_cast<Nanos>((i * 7 + seed) % 40) * 1000;
      c.tcp_established = c.actual_start + 100'000 + jitter;
      c.tls_done = c.tcp_established + handshake_ns + jitter;
      c.closed = c.tls_done + 50'000;
      c.group = "X25519";
      c.client_hello_bytes = 230;
      c.cipher = "TLS_AES_256_GCM_SHA384";
      r.connections.push_back(c);
    }
    return r;
  }

  std::string Write(const std::string& name, const std::vector<std::string>& groups,
                    Nanos handshake_ns) {
    const std::string path = (dir_ / (name + ".sqlite")).string();
    results::RunInfo info;
    info.scenario = "cmp";
    info.scenario_file = "cmp.toml";
    info.scenario_text = "title = \"" + name + "\"\n";
    info.title = name;
    info.cpu_model = name == "a" ? "CPU A" : "CPU B";
    info.target = "embedded";
    info.seed = 5;
    info.trials_planned = static_cast<uint32_t>(2 * groups.size());
    info.started = "2026-12-01T00:00:00Z";
    std::vector<results::ArmRow> arms;
    for (size_t i = 0; i < groups.size(); ++i) {
      arms.push_back({static_cast<uint32_t>(i + 1),
                      groups[i],
                      {{"group", groups[i]}},
                      {{"group", groups[i]}, {"duration", name == "a" ? "8s" : "9s"}}});
    }
    auto w = results::RunWriter::Create(path, info, arms);
    EXPECT_TRUE(w) << w.error().message;
    if (!w) return path;
    loads_.push_back(std::make_unique<LoadResult>(Load(handshake_ns, 1)));
    loads_.push_back(std::make_unique<LoadResult>(Load(handshake_ns, 2)));
    uint32_t seq = 0;
    for (uint32_t block = 0; block < blocks_; ++block) {
      for (uint32_t arm = 1; arm <= groups.size(); ++arm) {
        results::TrialRow t;
        t.arm = arm;
        t.block = block;
        t.seq = seq++;
        t.started = "2026-12-01T00:00:01Z";
        t.ended = "2026-12-01T00:00:06Z";
        t.valid = true;
        // The server's CPU per handshake: 100 and 110 µs in run a, 200 and 230 µs in run b.
        t.server_handshakes = 1000;
        t.server_cpu_s = (name == "a" ? 0.100 + 0.010 * block : 0.200 + 0.030 * block);
        t.client_cpu_s = 0.040;  // 100 µs per connection (400 per trial), in both runs
        t.load = loads_[loads_.size() - 2 + block].get();
        EXPECT_TRUE(w->WriteTrial(t));
      }
    }
    EXPECT_TRUE(w->Finish("2026-12-01T00:01:00Z", true));
    return path;
  }

  fs::path dir_;
  std::vector<std::unique_ptr<LoadResult>> loads_;
  uint32_t blocks_ = 2;  // trials per arm in the runs Write makes
};

TEST_F(CompareTest, MatchesArmsByFactorsListsTheRestAndGatesOnTheInterval) {
  const std::string a = Write("a", {"X25519", "X25519MLKEM768"}, 1'000'000);
  const std::string b = Write("b", {"MLKEM768", "X25519"}, 2'000'000);
  report::CompareOptions o;
  o.gates = {ParseGate("handshake.p50 > +0.5ms").value(), ParseGate("connect.p50 > +0.5ms").value(),
             ParseGate("handshake.p50 > +1.5ms").value()};
  auto c = report::CompareRuns({a, b}, o);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->arms.size(), 2u);
  // X25519 is arm 1 in A and arm 2 in B: matched by its factors, not its position.
  const report::MatchedArm& x = c->arms[0];
  EXPECT_EQ(x.label, "X25519");
  ASSERT_EQ(x.versus.size(), 1u);
  EXPECT_EQ(x.versus[0].baseline_arm, 1u);
  EXPECT_EQ(x.versus[0].arm, 2u);
  ASSERT_GE(x.versus[0].phases.size(), 2u);  // connect and handshake at least (no requests)
  for (const report::PhaseVersus& p : x.versus[0].phases) {
    for (const report::StatisticVersus& s : p.statistics) {
      SCOPED_TRACE(std::string(PhaseName(p.phase)) + " " + std::string(StatisticName(s.statistic)));
      ASSERT_TRUE(s.difference.estimate);
      if (p.phase == Phase::kConnect) {
        EXPECT_NEAR(*s.difference.estimate, 0, 1e-6);
        EXPECT_FALSE(s.difference.detectable) << s.difference.verdict;
      } else if (p.phase == Phase::kHandshake) {
        EXPECT_NEAR(*s.difference.estimate, 1000, 1e-6);
        EXPECT_TRUE(s.difference.detectable) << s.difference.verdict;
        // Both trials of a run hold the same values: the jackknife over them is 0, and the
        // interval is the connections' own — narrow, never of zero width.
        ASSERT_TRUE(s.difference.lo && s.difference.hi);
        EXPECT_LT(*s.difference.lo, 1000);
        EXPECT_GT(*s.difference.hi, 1000);
        EXPECT_NE(s.difference.verdict.find("+1.000 ms"), std::string::npos)
            << s.difference.verdict;
      }
    }
  }
  // CPU: one value per trial, compared over trials (Welch): +110 µs per handshake, detectable;
  // the client's is the same in both runs.
  ASSERT_EQ(x.versus[0].cpu.size(), 2u);
  const report::CpuVersus& server = x.versus[0].cpu[0];
  EXPECT_EQ(server.what, "server CPU per handshake");
  EXPECT_NEAR(*server.baseline_us, 105, 1e-9);
  EXPECT_NEAR(*server.other_us, 215, 1e-9);
  EXPECT_EQ(server.baseline_trials, 2);
  EXPECT_NEAR(*server.difference.estimate, 110, 1e-9);
  ASSERT_TRUE(server.difference.lo && server.difference.hi);
  EXPECT_LT(*server.difference.lo, 110);
  EXPECT_GT(*server.difference.hi, 110);
  EXPECT_NEAR(*server.relative_pct, 100.0 * 110 / 105, 1e-9);
  const report::CpuVersus& client = x.versus[0].cpu[1];
  EXPECT_NEAR(*client.baseline_us, 100, 1e-9);
  EXPECT_NEAR(*client.difference.estimate, 0, 1e-9);
  EXPECT_FALSE(client.difference.detectable) << client.difference.verdict;
  EXPECT_EQ(x.versus[0].setting_differences,
            std::vector<std::string>({"duration: \"8s\" vs \"9s\""}));
  // X25519MLKEM768 only in A, MLKEM768 only in B: both listed, neither compared.
  ASSERT_EQ(c->only_in_one.size(), 2u);
  EXPECT_EQ(c->only_in_one[0].label, "X25519MLKEM768");
  EXPECT_EQ(c->only_in_one[0].run, 0u);
  EXPECT_EQ(c->only_in_one[1].label, "MLKEM768");
  EXPECT_EQ(c->only_in_one[1].run, 1u);
  EXPECT_TRUE(c->arms[1].versus.empty());
  // The machines differ, and so do the scenario texts: both said.
  ASSERT_EQ(c->facts_that_differ.size(), 2u);
  EXPECT_NE(c->facts_that_differ[0].find("cpu_model CPU A vs CPU B"), std::string::npos);
  EXPECT_NE(c->facts_that_differ[1].find("scenario text"), std::string::npos);
  // Gates: +1 ms is beyond 0.5 ms (fails); connect did not change (passes); 1.5 ms is not
  // crossed (passes).
  ASSERT_EQ(c->gates.size(), 3u);
  EXPECT_TRUE(c->gates[0].failed);
  EXPECT_FALSE(c->gates[1].failed);
  EXPECT_FALSE(c->gates[2].failed);
  EXPECT_TRUE(c->any_gate_failed());
  // Every format that compare writes carries the failed gate; the others are refused.
  std::ostringstream text, json;
  ASSERT_TRUE(report::WriteComparison(text, *c, report::Format::kTable));
  EXPECT_NE(text.str().find("FAILED"), std::string::npos);
  EXPECT_NE(text.str().find("X25519, handshake (run 2 vs run 1): p50 +1.000 ms"), std::string::npos)
      << text.str();
  ASSERT_TRUE(report::WriteComparison(json, *c, report::Format::kJson));
  auto parsed = nlohmann::json::parse(json.str());
  EXPECT_EQ(parsed["gates"][0]["failed"], true);
  EXPECT_EQ(parsed["arms_not_in_every_run"].size(), 2u);
  // CSV: fixed columns, a row per arm, run, measure and statistic (4 statistics of each
  // measured phase, then the two CPU rows).
  std::ostringstream csv;
  ASSERT_TRUE(report::WriteComparison(csv, *c, report::Format::kCsv));
  std::istringstream lines(csv.str());
  std::string header, line;
  std::getline(lines, header);
  EXPECT_EQ(header,
            "arm,factors,run,baseline_run,measure,statistic,baseline_us,other_us,difference_us,"
            "lo_us,hi_us,detectable,from_invalid_trials");
  size_t rows = 0, server_rows = 0;
  while (std::getline(lines, line)) {
    ++rows;
    if (line.find(",cpu:server,mean,") != std::string::npos) {
      ++server_rows;
      EXPECT_EQ(line.rfind("X25519,", 0), 0u) << line;
    }
  }
  EXPECT_EQ(rows, 4 * x.versus[0].phases.size() + 2);
  EXPECT_EQ(server_rows, 1u);
}

// The HTML page, opened in headless Chromium: the findings first, every chart drawn (the
// differences as bars with their intervals, each matched arm's spectra one line per run),
// nothing fetched, no console error.
TEST_F(CompareTest, HtmlPageRendersInChromium) {
  browser::ExpectBrowserTools();
  if (HasFatalFailure()) return;
  const std::string a = Write("a", {"X25519", "X25519MLKEM768"}, 1'000'000);
  const std::string b = Write("b", {"MLKEM768", "X25519"}, 2'000'000);
  auto c = report::CompareRuns({a, b}, {});
  ASSERT_TRUE(c) << c.error().message;
  const fs::path html = browser::BrowserOutDir() / "compare.html";
  {
    std::ofstream out(html);
    ASSERT_TRUE(report::WriteComparison(out, *c, report::Format::kHtml));
  }
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_LT(page.find("id=\"findings\""), page.find("id=\"runs\""));
  EXPECT_NE(page.find("X25519, handshake (run 2 vs run 1): p50 +1.000 ms"), std::string::npos);
  const browser::Browsed browsed =
      browser::RunChecker(html, browser::BrowserOutDir() / "compare.png");
  nlohmann::json r = browsed.result;
  ASSERT_TRUE(r.is_object()) << "no result (exit " << browsed.exit_code
                             << "): " << browsed.stderr_text;
  EXPECT_EQ(browsed.exit_code, 0) << r.dump(1) << browsed.stderr_text;
  EXPECT_EQ(r["consoleErrors"], nlohmann::json::array());
  EXPECT_EQ(r["blockedRequests"], nlohmann::json::array());
  // Drawn: the differences and X25519's spectra; X25519MLKEM768 is in run a only.
  ASSERT_TRUE(r["charts"].contains("chart-differences")) << r.dump(1);
  ASSERT_TRUE(r["charts"].contains("chart-spectrum-0")) << r.dump(1);
  EXPECT_FALSE(r["charts"].contains("chart-spectrum-1"));
  EXPECT_NE(std::find(r["omitted"].begin(), r["omitted"].end(), "chart-spectrum-1-omitted"),
            r["omitted"].end());
  const nlohmann::json& diffs = r["charts"]["chart-differences"];
  EXPECT_TRUE(diffs["rendered"].get<bool>());
  // The handshake phase is shown first: one arm, four statistics, four bars, each with its
  // interval, and the zero line.
  EXPECT_EQ(diffs["rects"].get<size_t>(), 4u) << diffs;
  EXPECT_EQ(diffs["rules"].get<size_t>(), 5u) << diffs;
  const nlohmann::json& spectra = r["charts"]["chart-spectrum-0"];
  EXPECT_EQ(spectra["lines"].get<size_t>(), 2u) << spectra;  // one per run
}

// Drift between runs: trials within each run agree, runs do not. One run per side sees a
// difference that is only the runs' own drift; with several runs per side (--against) the run
// is the replicate and the same drift is inside the interval.
TEST_F(CompareTest, SidesOfSeveralRunsHaveTheRunAsTheirReplicate) {
  const std::string a1 = Write("a", {"X25519"}, 1'000'000);
  const std::string a2 = Write("a2", {"X25519"}, 1'200'000);
  const std::string b1 = Write("b1", {"X25519"}, 1'100'000);
  const std::string b2 = Write("b2", {"X25519"}, 1'100'000);
  auto handshake_p50 = [](const report::RunComparison& c) {
    const auto& phases = c.arms.at(0).versus.at(0).phases;
    for (const report::PhaseVersus& p : phases) {
      if (p.phase == Phase::kHandshake) return p.statistics.at(1).difference;
    }
    return report::Difference{};
  };
  auto one = report::CompareRuns({a1, b1}, {});
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(one->replicate, "trial");
  const report::Difference d1 = handshake_p50(*one);
  EXPECT_TRUE(d1.detectable) << d1.verdict;  // +0.1 ms: the runs' drift, seen as a change
  EXPECT_EQ(d1.replicates, 2u);
  report::CompareOptions sides;
  sides.against = {b1, b2};
  auto two = report::CompareRuns({a1, a2}, sides);
  ASSERT_TRUE(two) << two.error().message;
  EXPECT_EQ(two->replicate, "run");
  const report::Difference d2 = handshake_p50(*two);
  EXPECT_EQ(d2.replicates, 2u);
  ASSERT_TRUE(d2.lo && d2.hi) << d2.verdict;
  EXPECT_FALSE(d2.detectable) << d2.verdict;
  EXPECT_LT(*d2.lo, 0);
  EXPECT_GT(*d2.hi, 0);
  EXPECT_NE(two->runs.at(0).path.find(" + "), std::string::npos) << two->runs.at(0).path;
  // A side of one run has nothing to vary over: refused, saying what would do.
  report::CompareOptions lone;
  lone.against = {b1};
  auto refused = report::CompareRuns({a1, a2}, lone);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("each side needs two runs or more"), std::string::npos)
      << refused.error().message;
}

// One trial per run: an estimate, no interval. The findings must not call a +5 ms change "not
// detectable", and a gate that cannot judge must not pass (compare exits 5 for it).
TEST_F(CompareTest, OneTrialPerRunCannotJudgeAndItsGateDoesNotPass) {
  blocks_ = 1;
  const std::string a = Write("a", {"X25519"}, 1'000'000);
  const std::string b = Write("b", {"X25519"}, 6'000'000);
  report::CompareOptions o;
  o.gates = {ParseGate("handshake.p50 > +1ms").value()};
  auto c = report::CompareRuns({a, b}, o);
  ASSERT_TRUE(c) << c.error().message;
  for (const report::PhaseVersus& p : c->arms.at(0).versus.at(0).phases) {
    if (p.phase != Phase::kHandshake) continue;
    const report::Difference& d = p.statistics.at(1).difference;
    ASSERT_TRUE(d.estimate);
    EXPECT_NEAR(*d.estimate, 5000, 1e-6);
    EXPECT_FALSE(d.lo);
    EXPECT_FALSE(d.detectable);
    EXPECT_NE(d.verdict.find("no interval: cannot judge"), std::string::npos) << d.verdict;
  }
  ASSERT_EQ(c->gates.size(), 1u);
  EXPECT_FALSE(c->gates[0].failed);
  EXPECT_TRUE(c->gates[0].cannot_judge);
  EXPECT_TRUE(c->any_gate_cannot_judge());
  bool said = false;
  for (const std::string& f : report::ComparisonFindings(*c)) {
    EXPECT_EQ(f.find("no difference detectable"), std::string::npos) << f;
    said = said || f.find("arm phase(s): no interval: cannot judge") != std::string::npos;
  }
  EXPECT_TRUE(said);
  // With two trials per run the same gate can judge, and fails.
  blocks_ = 2;
  auto judged = report::CompareRuns(
      {Write("a2", {"X25519"}, 1'000'000), Write("b2", {"X25519"}, 6'000'000)}, o);
  ASSERT_TRUE(judged) << judged.error().message;
  EXPECT_TRUE(judged->any_gate_failed());
  EXPECT_FALSE(judged->any_gate_cannot_judge());
}

TEST(Gate, CannotJudgeWithoutAnInterval) {
  const Gate g = ParseGate("handshake.p50 > +10%").value();
  EXPECT_TRUE(GateCannotJudge(g, 500, std::nullopt, std::nullopt, 1000));
  EXPECT_FALSE(GateCannotJudge(g, 500, 400, 600, 1000));  // an interval: judged
  EXPECT_FALSE(GateCannotJudge(g, std::nullopt, std::nullopt, std::nullopt, 1000));  // nothing
  EXPECT_FALSE(GateCannotJudge(g, 500, std::nullopt, std::nullopt, std::nullopt));   // no threshold
}

TEST_F(CompareTest, RefusesFewerThanTwoRunsAndABaselineOutOfRange) {
  const std::string a = Write("a", {"X25519"}, 1'000'000);
  EXPECT_FALSE(report::CompareRuns({a}, {}));
  report::CompareOptions o;
  o.baseline = 2;
  auto c = report::CompareRuns({a, a}, o);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("--baseline 3"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace pqc
