// capacity_test — crypto floors stored with the arms (schema 2, and schema-1 files still read
// with null floors), the floor of an arm priced from a known speed table, Student t intervals,
// and the summary's CPU and capacity numbers computed from a real results.sqlite written by
// the results writer with known CPU values: the arithmetic is checked exactly.
#include "report/capacity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "report/study_summary.h"
#include "report/summary_json.h"
#include "report/text_report.h"
#include "results/run_reader.h"
#include "results/run_writer.h"
#include "results/schema.h"
#include "scenario/arm_floor.h"
#include "stats/normal.h"
#include "stats/student_t.h"
#include "stats/trial_jackknife.h"

namespace pqc {
namespace {

namespace fs = std::filesystem;

TEST(StudentT, CriticalValuesMatchTheTables) {
  // Two-sided 95 % critical values (any statistics table), to the table's 3 decimals.
  EXPECT_NEAR(StudentTQuantile(0.95, 1), 12.706, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.95, 2), 4.303, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.95, 3), 3.182, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.95, 4), 2.776, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.95, 30), 2.042, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.99, 5), 4.032, 5e-4);
  EXPECT_TRUE(std::isnan(StudentTQuantile(0.95, 0)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(1.0, 3)));
}

TEST(StudentT, IntervalOverValues) {
  const std::vector<double> v = {1, 2, 3, NAN};  // NaN skipped: n = 3, s = 1
  const MeanInterval m = TInterval(v, 0.95);
  EXPECT_EQ(m.n, 3);
  EXPECT_DOUBLE_EQ(m.mean, 2.0);
  const double half = StudentTQuantile(0.95, 2) / std::sqrt(3.0);
  EXPECT_NEAR(m.lo, 2.0 - half, 1e-12);  // the same sum, rounded in another order
  EXPECT_NEAR(m.hi, 2.0 + half, 1e-12);
  const std::vector<double> one = {5};
  const MeanInterval o = TInterval(one, 0.95);
  EXPECT_DOUBLE_EQ(o.mean, 5);
  EXPECT_TRUE(std::isnan(o.lo));
}

TEST(StudentT, WelchDifferenceOfTwoIndependentSetsOfTrials) {
  // base: mean 2, s² 1, n 3; other: mean 5.5, s² 5/3, n 4. se² = 1/3 + 5/12 = 0.75; Welch's
  // df = 0.75² / ((1/3)²/2 + (5/12)²/3) = 4.96, not rounded (t = 2.574, not t₄ = 2.776).
  const std::vector<double> base = {1, 2, 3}, other = {4, 5, 6, 7, NAN};
  const MeanInterval d = WelchDifference(base, other, 0.95);
  EXPECT_EQ(d.n, 3);
  EXPECT_DOUBLE_EQ(d.mean, 3.5);
  const double df = 0.75 * 0.75 / ((1.0 / 9) / 2 + (25.0 / 144) / 3);
  const double half = StudentTQuantileDf(0.95, df) * std::sqrt(0.75);
  EXPECT_NEAR(d.lo, 3.5 - half, 1e-9);
  EXPECT_NEAR(d.hi, 3.5 + half, 1e-9);
  EXPECT_LT(half, StudentTQuantile(0.95, 4) * std::sqrt(0.75));
  EXPECT_GT(d.lo, 0);  // 1.10: the two sets differ detectably
  // One trial on a side: an estimate, no interval; none on a side: nothing.
  const std::vector<double> one = {9};
  const MeanInterval single = WelchDifference(base, one, 0.95);
  EXPECT_DOUBLE_EQ(single.mean, 7);
  EXPECT_TRUE(std::isnan(single.lo));
  EXPECT_TRUE(std::isnan(WelchDifference(base, std::vector<double>{}, 0.95).mean));
  // Tied trials on both sides: no longer a zero-width interval (any nonzero difference would
  // be "detectable"), but the floor the measurement implies: ±z·√(f/2 + f/2).
  const std::vector<double> same = {4, 4};
  const MeanInterval tied = WelchDifference(same, std::vector<double>{6, 6}, 0.95, 0.25);
  EXPECT_NEAR(tied.hi - 2, NormalQuantile(0.975) * 0.5, 1e-9);
  EXPECT_NEAR(2 - tied.lo, NormalQuantile(0.975) * 0.5, 1e-9);
  EXPECT_LT(tied.lo, 1.5);  // a 1.5 µs-wide floor each way: 2 ± 0.98
}

TEST(StudentT, RealDegreesOfFreedomAgreeWithTheIntegerSeries) {
  for (int df : {1, 2, 3, 7, 30}) {
    EXPECT_NEAR(StudentTQuantileDf(0.95, df), StudentTQuantile(0.95, df), 1e-8) << df;
  }
  // Between the integers, between their quantiles (df 1.5: about 6.0).
  EXPECT_GT(StudentTQuantileDf(0.95, 1.5), StudentTQuantile(0.95, 2));
  EXPECT_LT(StudentTQuantileDf(0.95, 1.5), StudentTQuantile(0.95, 1));
  EXPECT_NEAR(StudentTQuantileDf(0.95, 1e6), NormalQuantile(0.975), 1e-4);
  EXPECT_TRUE(std::isnan(StudentTQuantileDf(0.95, 0)));
}

// CPU per handshake's "more than classical" is the ratio of the two arms' means; its interval
// must be around that number. Here the per-block ratios (1.5, 1.1, 3.0: mean +87 %) disagree
// with the ratio of means (1270/600: +112 %): the old interval, Student t around the mean of
// per-block ratios, was centred at +87 %, 25 points away from the number printed.
TEST(Capacity, MoreCpuIntervalIsAroundTheRatioItPrints) {
  auto arm = [](uint32_t id, const std::string& group, const std::string& chain,
                std::vector<double> us) {
    report::CapacityArm a;
    a.id = id;
    a.label = group;
    a.target = "embedded";
    a.group = group;
    a.chain = chain;
    for (uint32_t b = 0; b < us.size(); ++b) {
      a.trials.push_back(
          {.block = b, .server_cpu_s = us[b] * 1000 / 1e6, .server_handshakes = 1000});
    }
    return a;
  };
  const std::vector<report::CapacityArm> arms = {
      arm(1, "X25519", "ecdsa-p256", {100, 200, 300}),
      arm(2, "X25519MLKEM768", "ml-dsa-44", {150, 220, 900})};
  const report::CapacitySummary doc = report::CapacityOf(arms, 0.95);
  ASSERT_EQ(doc.arms.size(), 2u);
  ASSERT_TRUE(doc.arms[1].more_cpu_pct);
  const report::MoreCpu& more = *doc.arms[1].more_cpu_pct;
  ASSERT_TRUE(more.estimate && more.ci.lo && more.ci.hi);
  EXPECT_NEAR(*more.estimate, (1270.0 / 600 - 1) * 100, 1e-9);
  EXPECT_LT(*more.ci.lo, *more.estimate);
  EXPECT_GT(*more.ci.hi, *more.estimate);
  // The interval is symmetric about the printed number: the jackknife of the ratio itself.
  EXPECT_NEAR(*more.estimate - *more.ci.lo, *more.ci.hi - *more.estimate, 1e-9);
  // Its variance: leaving out each block, 1120/500, 1050/400, 370/300 (ratios of the rest).
  const std::vector<double> without = {1120.0 / 500, 1050.0 / 400, 370.0 / 300};
  const double half = StudentTQuantile(0.95, 2) * std::sqrt(JackknifeVariance(without)) * 100;
  EXPECT_NEAR(*more.ci.hi - *more.estimate, half, 1e-6);
}

speed::SpeedTable KnownTable() {
  speed::SpeedTable t;
  auto add = [&t](const char* alg, bool group, speed::SpeedOp op, double us) {
    t.entries.push_back({alg, group, op, us, 1e6 / us, 100, 5});
  };
  using speed::SpeedOp;
  add("X25519", true, SpeedOp::kKeygen, 10);
  add("X25519", true, SpeedOp::kDerive, 20);
  add("ecdsa-p256", false, SpeedOp::kSign, 30);
  add("ecdsa-p256", false, SpeedOp::kVerify, 40);
  return t;
}

TEST(ArmFloor, FreshResumeAndMix) {
  scenario::ArmSettings s;  // ecdsa-p256 (a lone self-signed leaf), fresh
  s.group = "X25519";
  auto fresh = scenario::PriceArmFloor(KnownTable(), s);
  ASSERT_TRUE(fresh) << fresh.error().message;
  // client: keygen 10 + derive 20 + CertificateVerify verify 40; server: keygen 10 + derive
  // 20 + sign 30.
  EXPECT_DOUBLE_EQ(fresh->client_us, 70);
  EXPECT_DOUBLE_EQ(fresh->server_us, 60);
  s.mode = scenario::ModeMix("resume").value();  // key exchange only
  auto resumed = scenario::PriceArmFloor(KnownTable(), s);
  ASSERT_TRUE(resumed);
  EXPECT_DOUBLE_EQ(resumed->client_us, 30);
  EXPECT_DOUBLE_EQ(resumed->server_us, 30);
  s.mode = scenario::ModeMix("resume:75,fresh:25").value();
  auto mix = scenario::PriceArmFloor(KnownTable(), s);
  ASSERT_TRUE(mix);
  EXPECT_DOUBLE_EQ(mix->client_us, 0.75 * 30 + 0.25 * 70);
  EXPECT_DOUBLE_EQ(mix->server_us, 0.75 * 30 + 0.25 * 60);
  EXPECT_EQ(mix->detail["modes"].size(), 2u);
  s.chain = ParseChainSpec("ml-dsa-44")
                .value();  // not in the table: an error that says how to measure it
  auto missing = scenario::PriceArmFloor(KnownTable(), s);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("ml-dsa-44"), std::string::npos);
}

TEST(ArmFloor, MeasuredOnlyForWhatTheArmsUse) {
  scenario::Arm a;
  a.id = 1;
  a.label = "X25519";
  a.settings.group = "X25519";
  auto floors = scenario::MeasureArmFloors({a}, 2'000'000);
  ASSERT_TRUE(floors) << floors.error().message;
  ASSERT_EQ(floors->arms.size(), 1u);
  ASSERT_TRUE(floors->arms[0].has_value());
  EXPECT_GT(floors->arms[0]->server_us, 0);
  std::set<std::string> algorithms;
  for (const auto& e : floors->speed["entries"]) algorithms.insert(e["algorithm"]);
  EXPECT_EQ(algorithms, (std::set<std::string>{"X25519", "ecdsa-p256"}));
}

// A results database written by RunWriter with known server CPU: two arms (classical and
// ML-DSA-44 + hybrid), two blocks, 5000 server handshakes per trial, four measured
// connections per trial.
class CapacityDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pqc-capacity-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path() const { return (dir_ / "results.sqlite").string(); }

  static LoadResult Load() {
    LoadResult r;
    for (uint64_t i = 0; i < 4; ++i) {
      ConnectionRecord c;
      c.id = i;
      c.mode = ConnMode::kFresh;
      c.measured = true;
      c.intended_start = static_cast<Nanos>(1000 * (i + 1));
      c.actual_start = c.intended_start;
      c.tcp_established = c.actual_start + 100;
      c.tls_done = c.tcp_established + 1000;
      c.closed = c.tls_done + 100;
      c.group = "X25519";
      c.cipher = "TLS_AES_256_GCM_SHA384";
      r.connections.push_back(c);
    }
    return r;
  }

  void Write(bool with_floors) {
    results::RunInfo info;
    info.scenario = "cap";
    info.scenario_file = "cap.toml";
    info.scenario_text = "title = \"cap\"\n";
    info.title = "cap";
    info.target = "embedded";
    info.seed = 3;
    info.trials_planned = 4;
    info.started = "2026-11-30T03:00:00Z";
    info.speed = {{"entries", nlohmann::json::array()}};
    nlohmann::ordered_json f1 = {{"group", "X25519"}, {"chain", "ecdsa-p256"}};
    nlohmann::ordered_json f2 = {{"group", "X25519MLKEM768"}, {"chain", "ml-dsa-44"}};
    std::vector<results::ArmRow> arms = {
        {1,
         "X25519 · ecdsa-p256",
         f1,
         {{"group", "X25519"}, {"chain", "ecdsa-p256"}, {"target", "embedded"}}},
        {2,
         "X25519MLKEM768 · ml-dsa-44",
         f2,
         {{"group", "X25519MLKEM768"}, {"chain", "ml-dsa-44"}, {"target", "embedded"}}}};
    if (with_floors) {
      arms[0].floor = results::ArmFloor{150, 50, {{"group", "X25519"}}};
      arms[1].floor = results::ArmFloor{200, 125, {{"group", "X25519MLKEM768"}}};
    }
    auto w = results::RunWriter::Create(Path(), info, arms);
    ASSERT_TRUE(w) << w.error().message;
    // Server CPU per trial (s) for 5000 handshakes: arm 1 200 and 250 µs, arm 2 300 and
    // 375 µs — every quotient exact in binary.
    const double cpu[2][2] = {{1.0, 1.25}, {1.5, 1.875}};
    uint32_t seq = 0;
    for (uint32_t block = 0; block < 2; ++block) {
      for (uint32_t arm = 1; arm <= 2; ++arm) {
        results::TrialRow t;
        t.arm = arm;
        t.block = block;
        t.seq = seq++;
        t.started = "2026-11-30T03:00:01Z";
        t.ended = "2026-11-30T03:00:06Z";
        t.valid = true;
        t.target.wall_s = 2.0;
        t.server_cpu_s = cpu[arm - 1][block];
        t.server_handshakes = 5000;
        t.client_cpu_s = 0.002;  // 500 µs per measured connection (4 per trial)
        t.load = &load_;
        ASSERT_TRUE(w->WriteTrial(t));
      }
    }
    ASSERT_TRUE(w->Finish("2026-11-30T03:01:00Z", true));
  }

  Result<report::Summary> Summary() {
    auto db = results::OpenResults(Path());
    if (!db) return db.error();
    auto run = results::ReadRun(*db);
    if (!run) return run.error();
    return report::BuildStudySummary(*db, *run, {.resamples = 50, .confidence = 0.95});
  }

  fs::path dir_;
  LoadResult load_ = Load();
};

TEST_F(CapacityDbTest, FloorsSurviveTheRoundTrip) {
  Write(true);
  auto db = results::OpenResults(Path());
  ASSERT_TRUE(db);
  auto run = results::ReadRun(*db);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->schema_version, results::kSchemaVersion);
  ASSERT_TRUE(run->arms[1].floor.has_value());
  EXPECT_DOUBLE_EQ(run->arms[1].floor->client_us, 200);
  EXPECT_DOUBLE_EQ(run->arms[1].floor->server_us, 125);
  EXPECT_EQ(run->arms[1].floor->detail["group"], "X25519MLKEM768");
  EXPECT_TRUE(run->info.speed.contains("entries"));
}

TEST_F(CapacityDbTest, SchemaOneFilesReadWithNullFloors) {
  Write(true);
  {
    // What a version-1 writer left: no floor columns, no speed, version 1.
    auto db = results::Db::Open(Path(), false, false);
    ASSERT_TRUE(db);
    ASSERT_TRUE(
        db->Exec("ALTER TABLE arms DROP COLUMN floor_client_us;"
                 "ALTER TABLE arms DROP COLUMN floor_server_us;"
                 "ALTER TABLE arms DROP COLUMN floor_json;"
                 "ALTER TABLE run DROP COLUMN speed_json;"
                 "UPDATE meta SET value = '1' WHERE key = 'version'"));
  }
  auto db = results::OpenResults(Path());
  ASSERT_TRUE(db) << db.error().message;
  auto run = results::ReadRun(*db);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->schema_version, 1);
  EXPECT_FALSE(run->arms[0].floor.has_value());
  EXPECT_TRUE(run->info.speed.is_null());
  auto typed = report::BuildStudySummary(*db, *run, {.resamples = 50, .confidence = 0.95});
  ASSERT_TRUE(typed) << typed.error().message;
  const nlohmann::ordered_json s = report::SummaryJson(*typed);
  EXPECT_TRUE(s["arms"][0]["cpu"]["floor_server_us"].is_null());
  EXPECT_TRUE(s["arms"][0]["cpu"]["server_floor_ratio"].is_null());
  EXPECT_DOUBLE_EQ(s["arms"][0]["cpu"]["server_us_per_handshake"].get<double>(), 225);
}

TEST_F(CapacityDbTest, SummaryFillsFloorsRatiosAndCapacity) {
  Write(true);
  auto typed = Summary();
  ASSERT_TRUE(typed) << typed.error().message;
  const nlohmann::ordered_json s = report::SummaryJson(*typed);
  const auto& cpu1 = s["arms"][0]["cpu"];
  // Pooled: (1.0 + 1.25) s / 10000 handshakes = 225 µs; floor 50 → 4.5×.
  EXPECT_DOUBLE_EQ(cpu1["server_us_per_handshake"].get<double>(), 225);
  EXPECT_DOUBLE_EQ(cpu1["floor_server_us"].get<double>(), 50);
  EXPECT_DOUBLE_EQ(cpu1["server_floor_ratio"].get<double>(), 4.5);
  // Client: 0.004 s over 8 connections = 500 µs; floor 150.
  EXPECT_DOUBLE_EQ(cpu1["client_us_per_connection"].get<double>(), 500);
  EXPECT_DOUBLE_EQ(cpu1["floor_client_us"].get<double>(), 150);
  EXPECT_DOUBLE_EQ(cpu1["client_floor_ratio"].get<double>(), 500.0 / 150.0);

  const auto& cap = s["capacity"];
  ASSERT_EQ(cap["arms"].size(), 2u);
  const auto& c1 = cap["arms"][0];
  const auto& c2 = cap["arms"][1];
  EXPECT_EQ(c1["trials"], 2);
  EXPECT_DOUBLE_EQ(c1["server_us_per_handshake"]["mean"].get<double>(), 225);
  EXPECT_DOUBLE_EQ(c1["server_us_per_handshake"]["per_trial"][0].get<double>(), 200);
  EXPECT_DOUBLE_EQ(c1["server_us_per_handshake"]["per_trial"][1].get<double>(), 250);
  // Interval over the two trials: s = 25√2, se = 25, t(0.95, 1).
  const double half = StudentTQuantile(0.95, 1) * 25;
  EXPECT_DOUBLE_EQ(c1["server_us_per_handshake"]["ci"][0].get<double>(), 225 - half);
  EXPECT_DOUBLE_EQ(c1["server_us_per_handshake"]["ci"][1].get<double>(), 225 + half);
  EXPECT_DOUBLE_EQ(c1["handshakes_per_core_s"]["estimate"].get<double>(), 1e6 / 225);
  EXPECT_DOUBLE_EQ(c1["handshakes_per_core_s"]["ci"][0].get<double>(), 1e6 / (225 + half));
  EXPECT_TRUE(c1["handshakes_per_core_s"]["ci"][1].is_null());  // 225 − half < 0: unbounded
  EXPECT_DOUBLE_EQ(c1["server_busy"].get<double>(), (0.5 + 0.625) / 2);
  EXPECT_DOUBLE_EQ(c1["floor_ratio"].get<double>(), 4.5);
  EXPECT_EQ(c1["line"], "classical baseline");
  EXPECT_TRUE(c1["baseline"].is_null());

  EXPECT_DOUBLE_EQ(c2["server_us_per_handshake"]["mean"].get<double>(), 337.5);
  EXPECT_DOUBLE_EQ(c2["floor_ratio"].get<double>(), 337.5 / 125);
  EXPECT_EQ(c2["baseline"], 1);
  EXPECT_DOUBLE_EQ(c2["more_cpu_pct"]["estimate"].get<double>(), 50);
  // The ratio of the means (337.5/225) with the jackknife of that ratio over blocks: leaving
  // out either block leaves 375/250 or 300/200, both 1.5, so the jackknife variance is 0 — and
  // the interval is not [50, 50] but the floor of rusage's µs over 1,000 handshakes a trial:
  // around the printed number, narrow, never of zero width.
  EXPECT_EQ(c2["more_cpu_pct"]["paired_blocks"], 2);
  const double lo = c2["more_cpu_pct"]["ci"][0].get<double>();
  const double hi = c2["more_cpu_pct"]["ci"][1].get<double>();
  EXPECT_LT(lo, 50);
  EXPECT_GT(hi, 50);
  EXPECT_NEAR(lo, 50, 0.01);
  EXPECT_NEAR(hi, 50, 0.01);
  EXPECT_EQ(c2["line"], "50 % more server CPU per handshake than classical");

  std::ostringstream text;
  report::WriteStudyText(text, *typed, report::TextStyle::kTerminal);
  EXPECT_NE(text.str().find("X25519MLKEM768 · ml-dsa-44 [embedded]: 50 % more server CPU per "
                            "handshake than classical (+50 % to +50 % over 2 paired blocks) — "
                            "baseline X25519 · ecdsa-p256"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("4.50×"), std::string::npos) << text.str();
  std::ostringstream md;
  report::WriteStudyText(md, *typed, report::TextStyle::kMarkdown);
  EXPECT_NE(md.str().find("## Server capacity: handshakes/s per server core"), std::string::npos)
      << md.str();
}

TEST(Capacity, BaselineIsTheClassicalArmOfTheSameTargetAndOtherFactors) {
  std::vector<report::CapacityArm> arms(4);
  const char* targets[] = {"embedded", "embedded", "nginx", "nginx"};
  const char* chains[] = {"ecdsa-p256", "ml-dsa-65", "ecdsa-p256", "ml-dsa-65"};
  for (size_t i = 0; i < arms.size(); ++i) {
    arms[i].id = static_cast<uint32_t>(i + 1);
    arms[i].target = targets[i];
    arms[i].group = "X25519";
    arms[i].chain = chains[i];
  }
  EXPECT_FALSE(report::BaselineOf(arms, 0).has_value());
  EXPECT_EQ(report::BaselineOf(arms, 1), 0u);
  EXPECT_EQ(report::BaselineOf(arms, 3), 2u);
  arms[3].other_factors = {{"mode", "resume"}};  // no classical resume arm on nginx
  EXPECT_FALSE(report::BaselineOf(arms, 3).has_value());
  EXPECT_TRUE(report::IsClassical("secp256r1", "ecdsa-p256/rsa-2048"));
  EXPECT_FALSE(report::IsClassical("X25519MLKEM768", "ecdsa-p256"));
  EXPECT_FALSE(report::IsClassical("X25519", "ecdsa-p256/ml-dsa-87"));
}

}  // namespace
}  // namespace pqc
