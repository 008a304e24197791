// scenario_test — scenario files to plans: the matrix expansion, the layering of settings,
// the interleaved seeded order, and errors that name file, line and column.
#include "scenario/scenario.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "scenario/plan.h"
#include "test_paths.h"

namespace pqc::scenario {
namespace {

Result<Scenario> Parse(const std::string& text, ParseOptions options = {}) {
  return ParseScenarioText(text, "t.toml", options);
}

std::string ErrorOf(const std::string& text, ParseOptions options = {}) {
  auto s = Parse(text, options);
  if (!s) return s.error().message;
  auto p = MakePlan(*s);
  return p ? std::string("no error") : p.error().message;
}

constexpr const char* kTwoByThree = R"(
title = "two by three"
[tls]
chain = "ecdsa-p256"
[load]
rate = 300
duration = "2s"
warmup = "1s"
[trials]
count = 3
seed = 42
[matrix]
group = ["X25519", "X25519MLKEM768"]
mode = ["fresh", "resume", { value = "reuse", requests = 10 }]
)";

TEST(Scenario, MatrixIsTheProductInFileOrderWithOverrides) {
  auto s = Parse(kTwoByThree);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->title, "two by three");
  ASSERT_EQ(s->factors.size(), 2u);
  EXPECT_EQ(s->factors[0].name, "group");  // file order, not toml++'s sorted order
  auto arms = ExpandArms(*s);
  ASSERT_TRUE(arms) << arms.error().message;
  ASSERT_EQ(arms->size(), 6u);
  EXPECT_EQ((*arms)[0].label, "X25519 · fresh");
  EXPECT_EQ((*arms)[2].label, "X25519 · reuse");
  EXPECT_EQ((*arms)[5].label, "X25519MLKEM768 · reuse");
  EXPECT_EQ(ModeText((*arms)[2].settings.mode), "reuse");
  EXPECT_EQ((*arms)[2].settings.requests, 10u);
  EXPECT_EQ((*arms)[1].settings.requests, 1u);
  EXPECT_EQ((*arms)[4].settings.group, "X25519MLKEM768");
  EXPECT_DOUBLE_EQ((*arms)[4].settings.rate, 300);
  EXPECT_EQ((*arms)[4].settings.duration, 2'000'000'000);
}

TEST(Scenario, EveryBlockRunsEveryArmOnceInASeededOrder) {
  auto s = Parse(kTwoByThree);
  ASSERT_TRUE(s);
  auto plan = MakePlan(*s);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->trials.size(), 18u);
  std::set<std::vector<uint32_t>> orders;
  for (uint32_t b = 0; b < 3; ++b) {
    std::vector<uint32_t> block;
    for (const PlannedTrial& t : plan->trials) {
      if (t.block == b) block.push_back(t.arm);
    }
    std::vector<uint32_t> sorted = block;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<uint32_t>{1, 2, 3, 4, 5, 6})) << "block " << b;
    orders.insert(block);
  }
  EXPECT_GT(orders.size(), 1u) << "blocks should not all share one order";
  for (size_t i = 0; i < plan->trials.size(); ++i) EXPECT_EQ(plan->trials[i].seq, i);
  // Same seed, same order; another seed, another order.
  auto again = MakePlan(*s);
  ASSERT_TRUE(again);
  for (size_t i = 0; i < plan->trials.size(); ++i)
    EXPECT_EQ(again->trials[i].arm, plan->trials[i].arm);
  EXPECT_NE(BlockOrder(6, 42, 0), BlockOrder(6, 43, 0));
}

TEST(Scenario, BlockOrderIsAFairPermutation) {
  // Over many blocks each arm lands in each position about equally often.
  constexpr uint32_t kArms = 4, kBlocks = 4000;
  std::map<std::pair<uint32_t, uint32_t>, int> count;
  for (uint32_t b = 0; b < kBlocks; ++b) {
    auto order = BlockOrder(kArms, 7, b);
    for (uint32_t pos = 0; pos < kArms; ++pos) ++count[{order[pos], pos}];
  }
  for (const auto& [key, n] : count) {
    EXPECT_GT(n, 850) << "arm " << key.first << " at " << key.second;  // expected 1000
    EXPECT_LT(n, 1150) << "arm " << key.first << " at " << key.second;
  }
}

// Position of arm `arm` (1-based id) in block `b` of `plan`.
size_t PositionIn(const Plan& plan, uint32_t b, uint32_t arm) {
  size_t pos = 0;
  for (const PlannedTrial& t : plan.trials) {
    if (t.block != b) continue;
    if (t.arm == arm) return pos;
    ++pos;
  }
  return SIZE_MAX;
}

TEST(Scenario, AnAdjacentFactorsArmsRunNextToEachOtherInEveryBlock) {
  // [trials] adjacent = "group": the two arms of each mode (one per group) are neighbours;
  // which pair comes first, and which group leads in a pair, are both drawn.
  std::string text = kTwoByThree;
  text.replace(text.find("seed = 42"), 9, "seed = 42\nadjacent = \"group\"");
  auto s = Parse(text);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->adjacent, "group");
  s->trials = 400;
  auto plan = MakePlan(*s);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->adjacent, "group");
  std::map<uint32_t, int> x25519_first;  // per mode (arm id of its X25519 arm): times it led
  std::map<uint32_t, int> first_pair;    // which X25519 arm's pair opened the block
  for (uint32_t b = 0; b < 400; ++b) {
    for (uint32_t x = 1; x <= 3; ++x) {  // arms 1-3 X25519, 4-6 the hybrid, same mode order
      const size_t a = PositionIn(*plan, b, x), h = PositionIn(*plan, b, x + 3);
      ASSERT_EQ(a > h ? a - h : h - a, 1u) << "block " << b << ", mode arm " << x;
      if (a < h) ++x25519_first[x];
      if (std::min(a, h) == 0) ++first_pair[x];
    }
  }
  for (uint32_t x = 1; x <= 3; ++x) {
    EXPECT_GT(x25519_first[x], 160) << x;  // expected 200 of 400
    EXPECT_LT(x25519_first[x], 240) << x;
    EXPECT_GT(first_pair[x], 100) << x;  // expected 133 of 400
    EXPECT_LT(first_pair[x], 170) << x;
  }
  // The order stays a pure function of the seed.
  auto again = MakePlan(*s);
  ASSERT_TRUE(again);
  for (size_t i = 0; i < plan->trials.size(); ++i)
    EXPECT_EQ(again->trials[i].arm, plan->trials[i].arm);
}

TEST(Scenario, TheAdjacentFactorDefaultsToTheOneAStopAsksAboutThenTheBuild) {
  auto plain = Parse(kTwoByThree);
  ASSERT_TRUE(plain);
  EXPECT_EQ(AdjacentFactor(*plain), "") << "no [stop], no build: a full shuffle";
  // Without an adjacent factor the order is the full shuffle runs always had.
  auto plan = MakePlan(*plain);
  ASSERT_TRUE(plan);
  for (uint32_t b = 0; b < 3; ++b) {
    const std::vector<uint32_t> order = BlockOrder(6, 42, b);
    for (uint32_t pos = 0; pos < 6; ++pos) EXPECT_EQ(plan->trials[b * 6 + pos].arm, order[pos] + 1);
  }
  auto one = Parse(std::string(kTwoByThree) + "[stop]\nfactors = [\"mode\"]\n");
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(AdjacentFactor(*one), "mode");
  auto both = Parse(std::string(kTwoByThree) + "[stop]\nfactors = [\"mode\", \"group\"]\n");
  ASSERT_TRUE(both) << both.error().message;
  EXPECT_EQ(AdjacentFactor(*both), "") << "two factors asked: neither is favoured";
  auto built = Parse(kTwoByThree, {.builds = {"a=/bin/true", "b=/bin/false"}});
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_EQ(AdjacentFactor(*built), "build");
  // One value left of the named factor: nothing to keep together.
  auto only =
      Parse(std::string(kTwoByThree) + "[stop]\nfactors = [\"mode\"]\n", {.only = {"mode=fresh"}});
  ASSERT_TRUE(only) << only.error().message;
  EXPECT_EQ(AdjacentFactor(*only), "");
}

TEST(Scenario, AnAdjacentFactorNotInTheMatrixIsAnError) {
  std::string text = kTwoByThree;
  text.replace(text.find("seed = 42"), 9, "seed = 42\nadjacent = \"groups\"");
  EXPECT_EQ(ErrorOf(text),
            "t.toml:12:12: [trials] adjacent: 'groups' is not a factor of the "
            "matrix (valid: group, mode)");
  text = kTwoByThree;
  text.replace(text.find("seed = 42"), 9, "seed = 42\nadjacent = 3");
  EXPECT_EQ(ErrorOf(text),
            "t.toml:12:12: adjacent must be the name of a matrix factor, e.g. "
            "\"group\"");
}

TEST(Scenario, FullAndSetAndTrialsOverride) {
  const std::string text = std::string(kTwoByThree) + "[full]\nduration = \"5m\"\ntrials = 3\n";
  auto quick = Parse(text);
  ASSERT_TRUE(quick);
  EXPECT_EQ(quick->base.duration, 2'000'000'000);
  auto full = Parse(text, {.full = true});
  ASSERT_TRUE(full);
  EXPECT_EQ(full->base.duration, 300'000'000'000);
  // The schedule's and the emulated link's limits are separate, with their own defaults.
  EXPECT_EQ(quick->base.max_lag_p99, 20'000'000);
  EXPECT_EQ(quick->base.max_link_late_p99, 1'000'000);
  auto set = Parse(text, {.overrides = {"duration=3s", "rate=50", "chain=ml-dsa-65",
                                        "max_lag_p99=5ms", "max_link_late_p99=250us"},
                          .trials = 1});
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->base.duration, 3'000'000'000);
  EXPECT_DOUBLE_EQ(set->base.rate, 50);
  EXPECT_EQ(set->base.chain.text, "ml-dsa-65");
  EXPECT_EQ(set->base.max_lag_p99, 5'000'000);
  EXPECT_EQ(set->base.max_link_late_p99, 250'000);
  EXPECT_EQ(set->trials, 1u);
}

TEST(Scenario, OnlyKeepsTheChosenValuesOfAFactorInFileOrder) {
  auto s = Parse(kTwoByThree, {.only = {"mode=reuse,fresh"}});
  ASSERT_TRUE(s) << s.error().message;
  auto arms = ExpandArms(*s);
  ASSERT_TRUE(arms) << arms.error().message;
  ASSERT_EQ(arms->size(), 4u);
  EXPECT_EQ((*arms)[0].label, "X25519 · fresh");
  EXPECT_EQ((*arms)[1].label, "X25519 · reuse");
  EXPECT_EQ((*arms)[1].settings.requests, 10u);  // the kept value's overrides still apply
  // Two factors narrowed to one value each: one arm, named by no factor.
  auto one = Parse(kTwoByThree, {.only = {"group=X25519MLKEM768", "mode=resume"}});
  ASSERT_TRUE(one) << one.error().message;
  auto arm = ExpandArms(*one);
  ASSERT_TRUE(arm) << arm.error().message;
  ASSERT_EQ(arm->size(), 1u);
  EXPECT_EQ((*arm)[0].settings.group, "X25519MLKEM768");
  EXPECT_EQ(ModeText((*arm)[0].settings.mode), "resume");

  EXPECT_EQ(ErrorOf(kTwoByThree, {.only = {"mode=early"}}),
            "--only mode=early: 'early' is not a value of matrix.mode (values: fresh, resume, "
            "reuse)");
  EXPECT_EQ(ErrorOf(kTwoByThree, {.only = {"network=loopback"}}),
            "--only network=loopback: 'network' is not a factor of t.toml (factors: group, mode)");
  for (const char* bad : {"mode", "=fresh", "mode="}) {
    EXPECT_EQ(ErrorOf(kTwoByThree, {.only = {bad}}),
              fmt::format("--only '{}': expected FACTOR=VALUE[,VALUE…], e.g. --only "
                          "network=loopback (factors: group, mode)",
                          bad));
  }
  EXPECT_NE(ErrorOf(kTwoByThree, {.only = {"mode=fresh,"}}).find("'' is not a value"),
            std::string::npos);
}

TEST(Scenario, ErrorsNameFileLineColumnAndWhatIsValid) {
  EXPECT_EQ(ErrorOf("[load]\nrate = 300\nduration = 5s\n").substr(0, 9), "t.toml:3:");
  std::string e = ErrorOf("[load]\nrate = -4\n");
  EXPECT_NE(e.find("t.toml:2:8"), std::string::npos) << e;
  EXPECT_NE(e.find("rate"), std::string::npos) << e;
  e = ErrorOf("[tls]\ngroup = \"X25519MLKEM76\"\n");
  EXPECT_NE(e.find("t.toml:2:9"), std::string::npos) << e;
  EXPECT_NE(e.find("X25519MLKEM768"), std::string::npos) << "suggests the nearest: " << e;
  e = ErrorOf("[load]\nrte = 3\n");
  EXPECT_NE(e.find("unknown key 'rte'"), std::string::npos) << e;
  EXPECT_NE(e.find("rate"), std::string::npos) << "lists valid keys: " << e;
  e = ErrorOf("[load]\ngroup = \"X25519\"\n");
  EXPECT_NE(e.find("belongs in [tls]"), std::string::npos) << e;
  e = ErrorOf("[matrix]\nvariant = [\"a\", \"b\"]\n");
  EXPECT_NE(e.find("t.toml:2:12"), std::string::npos) << e;
  EXPECT_NE(e.find("value ="), std::string::npos) << e;
  e = ErrorOf("[matrix]\ngroup = [\"X25519\", \"X25519\"]\n");
  EXPECT_NE(e.find("given twice"), std::string::npos) << e;
  e = ErrorOf("[matrix]\nnetwork = [\"loopback\", \"rtt70\"]\n");
  EXPECT_NE(e.find("network 'rtt70' is not defined"), std::string::npos) << e;
  EXPECT_NE(e.find("t.toml:2:24"), std::string::npos) << e;
  e = ErrorOf("[networks.rtt70]\nrtt = \"70\"\n");
  EXPECT_NE(e.find("t.toml:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("[networks.rtt70]: link rtt"), std::string::npos) << e;
  e = ErrorOf("[networks.x]\nrtt = \"70ms\"\nlatency = 3\n");
  EXPECT_NE(e.find("t.toml:3:11"), std::string::npos) << e;
  e = ErrorOf("[matrix]\nchain = [\"ecdsa-p256/nope\"]\n");
  EXPECT_NE(e.find("t.toml:2:10"), std::string::npos) << e;
  e = ErrorOf("[tls]\nclient_groups = \"X25519\"\ngroup = \"X25519MLKEM768\"\n");
  EXPECT_NE(e.find("does not offer"), std::string::npos) << e;
  e = ErrorOf("[load]\nmode = \"reuse\"\nconcurrency = 100\n");
  EXPECT_NE(e.find("request_interval"), std::string::npos) << e;
  e = ErrorOf("title = \"x\"\n[load\n");
  EXPECT_NE(e.find("TOML syntax"), std::string::npos) << e;
  EXPECT_NE(e.find("t.toml:2:"), std::string::npos) << e;
  e = ErrorOf("titel = \"x\"\n");
  EXPECT_NE(e.find("unknown key 'titel'"), std::string::npos) << e;
  e = ErrorOf("[target]\nkind = \"external\"\n");
  EXPECT_NE(e.find("address"), std::string::npos) << e;
  EXPECT_NE(ErrorOf("", {.overrides = {"nope=1"}}).find("unknown key 'nope'"), std::string::npos);
  EXPECT_NE(ErrorOf("", {.overrides = {"duration"}}).find("KEY=VALUE"), std::string::npos);
  // Early data: the server the tool runs must allow it (or the arm expects a refusal), and
  // anti-replay needs the session cache.
  e = ErrorOf("[load]\nmode = \"early\"\n");
  EXPECT_NE(e.find("mode early needs early_data = true"), std::string::npos) << e;
  EXPECT_EQ(ErrorOf("[load]\nmode = \"early\"\n[target]\nearly_data = true\n"), "no error");
  EXPECT_EQ(ErrorOf("[load]\nmode = \"early\"\nexpect_early_rejected = true\n"), "no error");
  // h2: early arms on every server (the embedded one answers HTTP/2 early data at 0.5-RTT as
  // it does HTTP/1.1's); a Retry is QUIC's.
  EXPECT_EQ(ErrorOf("[load]\nprotocol = \"h2\"\n"), "no error");
  EXPECT_EQ(ErrorOf("[load]\nprotocol = \"h2\"\nmode = \"early\"\n[target]\nearly_data = true\n"),
            "no error");
  EXPECT_EQ(ErrorOf("[load]\nprotocol = \"h2\"\nmode = \"early\"\n[target]\nkind = "
                    "\"nginx\"\nearly_data = true\n"),
            "no error");
  e = ErrorOf("[load]\nprotocol = \"h2\"\n[target]\nkind = \"haproxy\"\nquic_retry = true\n");
  EXPECT_NE(e.find("quic_retry = true with protocol h2"), std::string::npos) << e;
  // Concurrent streams: HTTP/2's, filled from the connection's requests, 1..100.
  EXPECT_EQ(ErrorOf("[load]\nprotocol = \"h2\"\nrequests = 6\nstreams = 3\n"), "no error");
  EXPECT_EQ(ErrorOf("[load]\nstreams = 1\n"), "no error");
  e = ErrorOf("[load]\nrequests = 6\nstreams = 3\n");
  EXPECT_NE(e.find("streams = 3 with protocol h1: only HTTP/2 carries requests side by side"),
            std::string::npos)
      << e;
  e = ErrorOf("[load]\nprotocol = \"h2\"\nrequests = 2\nstreams = 3\n");
  EXPECT_NE(e.find("streams = 3 with requests = 2"), std::string::npos) << e;
  e = ErrorOf("[load]\nprotocol = \"h2\"\nrequests = 200\nstreams = 101\n");
  EXPECT_NE(e.find("streams"), std::string::npos) << e;
  EXPECT_NE(e.find("100"), std::string::npos) << e;
  e = ErrorOf("[load]\nprotocol = \"h4\"\n");
  EXPECT_NE(e.find("valid: h1 for HTTP/1.1 over TLS over TCP, h2 for HTTP/2"), std::string::npos)
      << e;
  // quic_retry: a QUIC server's, and one the tool runs.
  e = ErrorOf("[target]\nquic_retry = true\n");
  EXPECT_NE(e.find("quic_retry = true with protocol h1"), std::string::npos) << e;
  EXPECT_EQ(ErrorOf("[load]\nprotocol = \"h3\"\n[target]\nquic_retry = true\n"), "no error");
  e = ErrorOf(
      "[load]\nprotocol = \"h3\"\n[target]\nkind = \"external\"\naddress = "
      "\"127.0.0.1:4433\"\nquic_retry = true\n");
  EXPECT_NE(e.find("quic_retry = true with an external target"), std::string::npos) << e;
  e = ErrorOf("[load]\nprotocol = \"h3\"\n[target]\nkind = \"nginx\"\nquic_retry = true\n");
  EXPECT_NE(e.find("nginx sends no Retry"), std::string::npos) << e;
  e = ErrorOf("[target]\nearly_data = true\nsession_cache = false\n");
  EXPECT_NE(e.find("early_data needs session_cache = true"), std::string::npos) << e;
  e = ErrorOf("[load]\nmode = \"erly\"\n");
  EXPECT_NE(e.find("resume, early"), std::string::npos) << e;
  // Two chains on one server: distinct leaf key types, the arm's chain one of them, and
  // signature schemes OpenSSL knows.
  EXPECT_EQ(ErrorOf("[tls]\nserver_chains = [\"ecdsa-p256\", \"ml-dsa-65\"]\n"), "no error");
  e = ErrorOf("[tls]\nserver_chains = [\"ml-dsa-65\", \"ml-dsa-44\"]\n");
  EXPECT_NE(e.find("chain 'ecdsa-p256' (the chain this arm's connections must be served) is not "
                   "one of server_chains (ml-dsa-65, ml-dsa-44)"),
            std::string::npos)
      << e;
  e = ErrorOf("[tls]\nserver_chains = [\"ecdsa-p256\", \"ecdsa-p384/ecdsa-p384\"]\n");
  EXPECT_NE(e.find("ecdsa-p256 and ecdsa-p384/ecdsa-p384 both have a EC leaf key"),
            std::string::npos)
      << e;
  e = ErrorOf("[tls]\nserver_chains = [\"ecdsa-p256\", \"ml-dsa-66\"]\n");
  EXPECT_NE(e.find("t.toml:2:17"), std::string::npos) << e;
  EXPECT_NE(e.find("ml-dsa-65"), std::string::npos) << "suggests the nearest: " << e;
  e = ErrorOf("[tls]\nserver_chains = 3\n");
  EXPECT_NE(e.find("an array of chains"), std::string::npos) << e;
  e = ErrorOf("[tls]\nsigalgs = \"mldsa65:ecdsa_p256\"\n");
  EXPECT_NE(e.find("t.toml:2:11"), std::string::npos) << e;
  EXPECT_NE(e.find("not a signature-algorithm list"), std::string::npos) << e;
  auto two = Parse("[tls]\nchain = \"ml-dsa-65\"\n",
                   {.overrides = {"server_chains=ecdsa-p256,ml-dsa-65"}});
  ASSERT_TRUE(two) << two.error().message;
  ASSERT_EQ(ServedChains(two->base).size(), 2u);
  EXPECT_EQ(ServedChains(two->base)[1].text, "ml-dsa-65");
  EXPECT_EQ(ErrorOf(""), "no error");
}

TEST(Scenario, BuildsAreArmsOfTheMatrix) {
  auto s = Parse(R"(
[builds.openssl36]
pqc_bench = "build-openssl-3.6/src/pqc-bench"
[builds.slow]
serve_args = ["--handshake-cpu", "50us"]
[matrix]
build = ["this", "openssl36", "slow"]
)");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->builds.size(), 2u);
  const Build& b = s->builds.at("openssl36");
  // Relative to the directory the run starts in, made absolute when read.
  EXPECT_EQ(b.pqc_bench,
            (std::filesystem::current_path() / "build-openssl-3.6/src/pqc-bench").string());
  EXPECT_EQ(b.location, "t.toml:2:1");
  EXPECT_EQ(s->builds.at("slow").serve_args, (std::vector<std::string>{"--handshake-cpu", "50us"}));
  auto plan = MakePlan(*s);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->arms.size(), 3u);
  EXPECT_EQ(plan->arms[0].settings.build, "this");
  EXPECT_EQ(plan->arms[1].settings.build, "openssl36");
  EXPECT_EQ(plan->arms[2].label, "slow");
  // Without a matrix, every arm is "this" build's.
  auto plain = Parse("[load]\nrate = 10\n");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->base.build, "this");
  EXPECT_TRUE(plain->builds.empty());

  std::string e = ErrorOf("[matrix]\nbuild = [\"this\", \"x\"]\n");
  EXPECT_NE(e.find("t.toml:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("build 'x' is not defined (defined: this;"), std::string::npos) << e;
  e = ErrorOf("[target]\nbuild = \"y\"\n");
  EXPECT_NE(e.find("t.toml:2:9: build 'y' is not defined"), std::string::npos) << e;
  e = ErrorOf("[builds.a]\npqc_bench = 3\n");
  EXPECT_NE(e.find("t.toml:2:13: pqc_bench must be the path of a binary"), std::string::npos) << e;
  e = ErrorOf("[builds.a]\nserve_args = \"--handshake-cpu 5us\"\n");
  EXPECT_NE(e.find("serve_args must be an array of strings"), std::string::npos) << e;
  e = ErrorOf("[builds]\na = 3\n");
  EXPECT_NE(e.find("[builds.a] must be a table"), std::string::npos) << e;
  e = ErrorOf("[builds.\"a b\"]\nnginx = \"x\"\n");
  EXPECT_NE(e.find("build name 'a b'"), std::string::npos) << e;
  e = ErrorOf("[matrix]\nbuild = [\"a b\"]\n");
  EXPECT_NE(e.find("is not a build name"), std::string::npos) << e;
}

TEST(Scenario, ConcurrencySetsTheRate) {
  auto s = Parse(R"(
[load]
mode = "reuse"
requests = 20
request_interval = "100ms"
[matrix]
concurrency = [100, 500]
)");
  ASSERT_TRUE(s) << s.error().message;
  auto arms = ExpandArms(*s);
  ASSERT_TRUE(arms) << arms.error().message;
  EXPECT_DOUBLE_EQ(EffectiveRate((*arms)[0].settings), 50);   // 100 / (20 × 0.1 s)
  EXPECT_DOUBLE_EQ(EffectiveRate((*arms)[1].settings), 250);  // 500 / 2 s
}

TEST(Scenario, NetworkOfSeveralSitesTakesItsSitesFromTheFilesProfiles) {
  auto s = Parse(R"(
[load]
network = "regions"
[networks.near]
rtt = "1ms"
[networks.far]
rtt = "148ms"
loss = "0.5%"
[networks.regions]
sites = ["far", "near"]
)");
  ASSERT_TRUE(s) << s.error().message;
  const NetworkProfile& n = s->networks.at("regions");
  ASSERT_TRUE(n.multi_site());
  EXPECT_TRUE(n.emulated());
  ASSERT_EQ(n.sites.size(), 2u);
  // The file's order is the sites' order (a connection's site is an index into it).
  EXPECT_EQ(n.sites[0].name, "far");
  EXPECT_DOUBLE_EQ(n.sites[0].rtt_ms, 148);
  EXPECT_DOUBLE_EQ(n.sites[0].link.loss, 0.005);
  EXPECT_EQ(n.sites[1].name, "near");
  EXPECT_DOUBLE_EQ(n.sites[1].rtt_ms, 1);
  EXPECT_TRUE(std::isnan(n.rtt_ms)) << "a network of several sites has no one RTT";
  const auto link_sites = n.LinkSites();
  ASSERT_EQ(link_sites.size(), 2u);
  EXPECT_EQ(link_sites[1].name, "near");
  EXPECT_EQ(link_sites[1].profile.rtt, 1'000'000);
  EXPECT_FALSE(s->networks.at("near").multi_site());
  EXPECT_EQ(s->networks.at("near").LinkSites().size(), 1u);
  auto plan = MakePlan(*s);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->arms[0].settings.network, "regions");
}

TEST(Scenario, BadSitesAreRefusedWithTheirPlace) {
  const std::string near = "[networks.near]\nrtt = \"1ms\"\n";
  std::string e = ErrorOf(near + "[networks.r]\nsites = [\"near\", \"nowhere\"]\n");
  EXPECT_NE(e.find("t.toml:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("'nowhere' is not an emulated network of this file"), std::string::npos) << e;
  EXPECT_NE(e.find("defined: near"), std::string::npos) << e;
  e = ErrorOf(near + "[networks.r]\nsites = [\"near\", \"loopback\"]\n");
  EXPECT_NE(e.find("'loopback' is not an emulated network"), std::string::npos) << e;
  e = ErrorOf(near + "[networks.r]\nsites = [\"near\"]\n");
  EXPECT_NE(e.find("an array of 2 to 64 network names"), std::string::npos) << e;
  e = ErrorOf(near + "[networks.r]\nsites = [\"near\", \"near\"]\n");
  EXPECT_NE(e.find("'near' given twice"), std::string::npos) << e;
  e = ErrorOf(near + "[networks.r]\nsites = [\"near\", 3]\n");
  EXPECT_NE(e.find("sites: names, as strings"), std::string::npos) << e;
  e = ErrorOf(near + "[networks.r]\nsites = [\"near\", \"near\"]\nrtt = \"5ms\"\n");
  EXPECT_NE(e.find("sites = [...] stands alone"), std::string::npos) << e;
  // A site is a plain profile: a network of sites is not one.
  e = ErrorOf(near +
              "[networks.far]\nrtt = \"9ms\"\n[networks.a]\nsites = [\"near\", "
              "\"far\"]\n[networks.b]\nsites = [\"a\", \"near\"]\n");
  EXPECT_NE(e.find("'a' is not an emulated network of this file"), std::string::npos) << e;
  EXPECT_NE(e.find("defined: far, near)"), std::string::npos) << e;
}

TEST(Scenario, ShippedScenariosParseAndPlan) {
  const std::filesystem::path dir = std::filesystem::path(PQC_SOURCE_DIR) / "scenarios";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".toml") continue;
    for (bool full : {false, true}) {
      auto s = ParseScenarioFile(entry.path().string(), {.full = full});
      ASSERT_TRUE(s) << s.error().message;
      auto plan = MakePlan(*s);
      ASSERT_TRUE(plan) << plan.error().message;
      EXPECT_FALSE(plan->arms.empty());
    }
    ++seen;
  }
  EXPECT_GE(seen, 10) << "01..08, 04b and quick.toml are shipped";
}

}  // namespace
}  // namespace pqc::scenario
