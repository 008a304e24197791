// count_report_test — what compare and report do with count results: the gate's grammar and
// its promise (fails only when the whole range of the difference is beyond the threshold), the
// range over repetitions, and count.json written and read back, or refused with where and why.
#include "count/count_report.h"

#include <gtest/gtest.h>

#include <string>

#include "count/count_gate.h"
#include "count/count_report_json.h"

namespace pqc::count {
namespace {

TEST(CountGate, ReadsSideStageOperatorAndThreshold) {
  auto g = ParseCountGate("server.instructions > +1%");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->side, "server");
  EXPECT_FALSE(g->stage.has_value());
  EXPECT_TRUE(g->above);
  EXPECT_TRUE(g->relative);
  EXPECT_DOUBLE_EQ(g->threshold, 1.0);
  auto v = ParseCountGate("client.verify<-20000");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(v->stage, Stage::kVerify);
  EXPECT_FALSE(v->above);
  EXPECT_FALSE(v->relative);
  EXPECT_DOUBLE_EQ(v->threshold, -20000.0);
}

TEST(CountGate, RefusesWhatItCannotJudgeAndSaysWhatIsValid) {
  for (const char* bad :
       {"server.instructions", "browser.instructions > 1%", "server.handshake > 1%", "server > 1%",
        "server.sign > x%", "server.sign > 1%%", "server.sign > -1%", "client.kex < +2%", ""}) {
    auto g = ParseCountGate(bad);
    ASSERT_FALSE(g) << bad;
    EXPECT_NE(g.error().message.find("valid:"), std::string::npos) << g.error().message;
  }
}

TEST(CountGate, FailsOnlyWhenTheWholeRangeIsBeyond) {
  auto g = ParseCountGate("server.instructions > +1%");
  ASSERT_TRUE(g);
  // Baseline 1,000,000 per handshake: +1 % is 10,000.
  CountDifference inside = Differ({1'000'000, 1'000'100}, {1'009'000, 1'012'000});
  EXPECT_DOUBLE_EQ(inside.lo, 8'900);
  EXPECT_DOUBLE_EQ(inside.hi, 12'000);
  EXPECT_FALSE(CountGateFails(*g, inside));  // the range reaches below +1 %
  CountDifference beyond = Differ({1'000'000, 1'000'100}, {1'011'000, 1'012'000});
  EXPECT_TRUE(CountGateFails(*g, beyond));
  auto faster = ParseCountGate("server.instructions < -1%");
  ASSERT_TRUE(faster);
  EXPECT_TRUE(CountGateFails(*faster, Differ({1'000'000}, {980'000})));
  EXPECT_FALSE(CountGateFails(*faster, Differ({1'000'000}, {995'000})));
}

CountReport Example() {
  CountReport r;
  r.arm = "X25519:ecdsa-p256 fresh h1";
  r.openssl = "OpenSSL 3.5.7";
  r.handshakes = 200;
  r.warmup = 10;
  r.floor_calls = 20;
  r.wall_s = {30.5, 31.25};
  r.dir = "results/count-x";
  r.native_connections = 3000;
  r.handshake_p50_us = 565.5;
  for (const char* name : {"client", "server"}) {
    SideResult s;
    s.side = name;
    s.total = {3'234'000, 3'234'100};
    s.cpu_us = 466.0;
    for (const StageInfo& info : Stages()) {
      StageResult st;
      st.stage = info.stage;
      st.per_handshake = {1000, 1001};
      st.syscalls = 2.5;
      if (info.stage == Stage::kKeyExchange) st.floor = 512'900;
      s.stages.push_back(st);
    }
    r.sides.push_back(s);
  }
  r.floor_ops.push_back({"X25519", "derive", 512'900, 20});
  return r;
}

TEST(CountReportJson, WrittenAndReadBackTheSame) {
  const CountReport r = Example();
  auto back = ParseCountReport(CountReportJson(r).dump(), "count.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->arm, r.arm);
  EXPECT_EQ(back->wall_s, r.wall_s);
  EXPECT_EQ(back->native_connections, 3000u);
  ASSERT_EQ(back->sides.size(), 2u);
  EXPECT_EQ(back->Side("server")->total, r.sides[1].total);
  EXPECT_EQ(back->Side("client")->cpu_us, 466.0);
  const StageResult* kex = back->Side("server")->Find(Stage::kKeyExchange);
  ASSERT_NE(kex, nullptr);
  EXPECT_EQ(kex->floor, 512'900);
  EXPECT_EQ(kex->per_handshake, (std::vector<double>{1000, 1001}));
  ASSERT_EQ(back->floor_ops.size(), 1u);
  EXPECT_EQ(back->floor_ops[0].op, "derive");
}

TEST(CountReportJson, RefusesAWrongDocumentSayingWhere) {
  nlohmann::json j = CountReportJson(Example());
  j["sides"]["server"]["stages"][2]["instructions"] = {1, 2, 3};
  auto r = ParseCountReport(j.dump(), "count.json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("sides.server.stages.sign"), std::string::npos)
      << r.error().message;
  nlohmann::json k = CountReportJson(Example());
  k["sides"]["client"]["stages"][0]["stage"] = "crypto";
  auto unknown = ParseCountReport(k.dump(), "count.json");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown stage 'crypto'"), std::string::npos);
  nlohmann::json m = CountReportJson(Example());
  m["sides"].erase("client");
  EXPECT_FALSE(ParseCountReport(m.dump(), "count.json"));
  EXPECT_FALSE(ParseCountReport("{\"arm\": 1}", "count.json"));
  EXPECT_FALSE(ParseCountReport("not json", "count.json"));
}

}  // namespace
}  // namespace pqc::count
