// scenario_target_test — the target as a setting: [target] kind, a matrix factor comparing
// servers arm by arm, `run --set target=nginx` retargeting a whole scenario, an external
// target's address check; the closed-loop setting of the capacity scenario; busy polling.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "net/address.h"
#include "scenario/arm_options.h"
#include "scenario/plan.h"
#include "scenario/scenario.h"
#include "test_paths.h"

namespace pqc::scenario {
namespace {

constexpr const char* kBase = R"(
[target]
kind = "embedded"
[load]
mode = "fresh"
rate = 10
duration = "1s"
)";

TEST(ScenarioTarget, KindIsTheTargetSettingAndSetOverridesIt) {
  auto s = ParseScenarioText(kBase, "t.toml", {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(TargetKindName(s->base.target), "embedded");
  EXPECT_EQ(TargetKindsText(s->targets), "embedded");
  auto n = ParseScenarioText(kBase, "t.toml", {.overrides = {"target=nginx"}});
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(TargetKindName(n->base.target), "nginx");
  EXPECT_EQ(TargetKindsText(n->targets), "nginx");
  auto bad = ParseScenarioText(kBase, "t.toml", {.overrides = {"target=apache"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("valid: embedded, nginx, haproxy, external"),
            std::string::npos)
      << bad.error().message;
}

TEST(ScenarioTarget, MatrixFactorComparesServersArmByArm) {
  auto s = ParseScenarioText(std::string(kBase) +
                                 "[matrix]\ntarget = [\"embedded\", \"nginx\"]\n"
                                 "group = [\"X25519\", \"X25519MLKEM768\"]\n",
                             "t.toml", {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(TargetKindsText(s->targets), "embedded, nginx");
  auto plan = MakePlan(*s);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->arms.size(), 4u);
  EXPECT_EQ(plan->arms[0].label, "embedded · X25519");
  EXPECT_EQ(TargetKindName(plan->arms[0].settings.target), "embedded");
  EXPECT_EQ(TargetKindName(plan->arms[3].settings.target), "nginx");
}

TEST(ScenarioTarget, ExternalNeedsAnAddressWhereverItIsNamed) {
  auto s = ParseScenarioText(
      std::string(kBase) + "[matrix]\ntarget = [\"embedded\", \"external\"]\n", "t.toml", {});
  ASSERT_TRUE(s) << s.error().message;
  auto plan = MakePlan(*s);  // before any trial, naming the arm
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("arm 'external': target external needs the server's "
                                      "address: address = \"HOST:PORT\" in [target], or run "
                                      "--target HOST:PORT"),
            std::string::npos)
      << plan.error().message;
}

TEST(ScenarioTarget, ClosedLoopIsCheckedAgainstConcurrency) {
  auto s = ParseScenarioText(std::string(kBase) + "closed_loop = 16\n", "t.toml", {});
  // closed_loop belongs in [load]: appended after [load]'s keys it lands there.
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->base.closed_loop, 16u);
  auto both = ParseScenarioText(std::string(kBase) +
                                    "closed_loop = 16\nconcurrency = 10\nrequests = 10\n"
                                    "request_interval = \"1s\"\n",
                                "t.toml", {.overrides = {"mode=reuse"}});
  ASSERT_TRUE(both) << both.error().message;
  auto plan = MakePlan(*both);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("closed_loop and concurrency"), std::string::npos)
      << plan.error().message;
}

TEST(ScenarioTarget, BusyPollReachesTheLoadOptionsAndTheLinkStudiesUseIt) {
  auto plain = ParseScenarioText(kBase, "t.toml", {});
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_FALSE(plain->base.busy_poll);
  auto s = ParseScenarioText(std::string(kBase) + "busy_poll = true\n", "t.toml", {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->base.busy_poll);
  LoadOptions o = MakeLoadOptions(s->base, ParseAddress("127.0.0.1:8443").value(), 1);
  EXPECT_TRUE(o.busy_poll);
  EXPECT_EQ(ToJson(s->base).at("busy_poll"), true);
  auto bad = ParseScenarioText(std::string(kBase) + "busy_poll = \"yes\"\n", "t.toml", {});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("busy_poll"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("must be true or false"), std::string::npos)
      << bad.error().message;
  for (const char* name : {"04-cert-chain-rtt.toml", "04b-loss-sweep.toml"}) {
    auto study = ParseScenarioFile(
        (std::filesystem::path(PQC_SOURCE_DIR) / "scenarios" / name).string(), {});
    ASSERT_TRUE(study) << study.error().message;
    EXPECT_TRUE(study->base.busy_poll) << name;
  }
}

TEST(ScenarioTarget, CpuPlacementIsReadInEveryFormAndReachesClientAndServer) {
  auto plain = ParseScenarioText(kBase, "t.toml", {});
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_TRUE(plain->base.client_cpus.empty());
  EXPECT_TRUE(MakeServerConfig(plain->base, {}).cpus.empty());
  auto s = ParseScenarioText(
      "[target]\nserver_cpus = 1\n[load]\nrate = 10\nduration = \"1s\"\nclient_cpus = [0]\n",
      "t.toml", {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->base.client_cpus, std::vector<unsigned>{0});
  EXPECT_EQ(s->base.server_cpus, std::vector<unsigned>{1});
  EXPECT_EQ(MakeLoadOptions(s->base, ParseAddress("127.0.0.1:8443").value(), 1).cpus,
            std::vector<unsigned>{0});
  EXPECT_EQ(MakeServerConfig(s->base, {}).cpus, std::vector<unsigned>{1});
  EXPECT_EQ(ToJson(s->base).at("server_cpus"), nlohmann::json::array({1}));
  // `run --set` gives text: TOML when it parses ([0, 1]), else the comma form.
  auto set =
      ParseScenarioText(kBase, "t.toml", {.overrides = {"client_cpus=0,1", "server_cpus=[1, 0]"}});
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->base.client_cpus, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(set->base.server_cpus, (std::vector<unsigned>{1, 0}));
  // A placement is a factor like any other: arms compared apart and together.
  auto factor = ParseScenarioText(std::string(kBase) + "[matrix]\nserver_cpus = [1, 0]\n", "t.toml",
                                  {.overrides = {"client_cpus=0"}});
  ASSERT_TRUE(factor) << factor.error().message;
  auto plan = MakePlan(*factor);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->arms.size(), 2u);
  EXPECT_EQ(plan->arms[0].settings.server_cpus, std::vector<unsigned>{1});
  EXPECT_EQ(plan->arms[1].settings.server_cpus, std::vector<unsigned>{0});
  EXPECT_NE(plan->arms[0].label, plan->arms[1].label);
  auto none = ParseScenarioText(kBase, "t.toml", {.overrides = {"client_cpus="}});
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->base.client_cpus.empty());
  for (const auto& [value, said] : std::vector<std::pair<std::string, std::string>>{
           {"client_cpus = -1", "CPU -1 is not from 0 to 1023"},
           {"client_cpus = [0, 0]", "CPU 0 is named twice"},
           {"client_cpus = [\"0\"]", "not an array holding a string"},
           {"client_cpus = \"0,x\"", "'x' in \"0,x\" must be CPU numbers"},
           {"client_cpus = true",
            "must be CPU numbers such as 1, [0, 1] or \"0,1\", not a boolean"}}) {
    auto bad = ParseScenarioText(std::string(kBase) + value + "\n", "t.toml", {});
    ASSERT_FALSE(bad) << value;
    EXPECT_NE(bad.error().message.find("client_cpus"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find(said), std::string::npos) << bad.error().message;
  }
}

TEST(ScenarioTarget, CapacityScenarioCoversTheThreeTargetsAndTheChains) {
  auto s = ParseScenarioFile(
      (std::filesystem::path(PQC_SOURCE_DIR) / "scenarios" / "09-server-capacity.toml").string(),
      {});
  ASSERT_TRUE(s) << s.error().message;
  auto plan = MakePlan(*s);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->arms.size(), 24u);  // 3 targets × 2 groups × 4 chains
  for (const Arm& a : plan->arms) {
    EXPECT_EQ(a.settings.server_threads, 1u);
    EXPECT_GT(a.settings.closed_loop, 0u);
    EXPECT_EQ(ModeText(a.settings.mode), "fresh");
  }
  EXPECT_EQ(plan->arms.front().label, "embedded · X25519 · ecdsa-p256");
  EXPECT_EQ(plan->arms.back().label, "haproxy · X25519MLKEM768 · ml-dsa-87");
  EXPECT_EQ(TargetKindsText(s->targets), "embedded, nginx, haproxy");
}

// 15-protocol-capacity: 09's closed loop with the protocol as a factor, every arm hybrid.
TEST(ScenarioTarget, ProtocolCapacityScenarioPutsTheThreeProtocolsSideBySide) {
  auto s = ParseScenarioFile(
      (std::filesystem::path(PQC_SOURCE_DIR) / "scenarios" / "15-protocol-capacity.toml").string(),
      {});
  ASSERT_TRUE(s) << s.error().message;
  auto plan = MakePlan(*s);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->arms.size(), 18u);  // 3 targets × 3 protocols × 2 chains
  std::set<Protocol> protocols;
  for (const Arm& a : plan->arms) {
    EXPECT_EQ(a.settings.server_threads, 1u);
    EXPECT_GT(a.settings.closed_loop, 0u);
    EXPECT_EQ(ModeText(a.settings.mode), "fresh");
    protocols.insert(a.settings.protocol);
  }
  EXPECT_EQ(protocols, (std::set<Protocol>{Protocol::kH1, Protocol::kH2, Protocol::kH3}));
  EXPECT_EQ(plan->arms.front().label, "embedded · h1 · ecdsa-p256");
  EXPECT_EQ(plan->arms.back().label, "haproxy · h3 · ml-dsa-65");
}

}  // namespace
}  // namespace pqc::scenario

namespace pqc::scenario {
namespace {

// An external server is outside the namespaces an emulated link joins: such an arm is refused
// by the plan, before any trial, saying what would work.
TEST(ScenarioTarget, ExternalArmOnAnEmulatedLinkIsRefused) {
  auto s = ParseScenarioText(
      std::string(kBase) + "[networks.wan]\nrtt = \"20ms\"\n", "t.toml",
      {.overrides = {"target=external", "address=127.0.0.1:9443", "network=wan"}});
  ASSERT_TRUE(s) << s.error().message;
  auto plan = MakePlan(*s);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("network 'wan' is an emulated link"), std::string::npos)
      << plan.error().message;
  auto loopback = ParseScenarioText(kBase, "t.toml",
                                    {.overrides = {"target=external", "address=127.0.0.1:9443"}});
  ASSERT_TRUE(loopback) << loopback.error().message;
  EXPECT_TRUE(MakePlan(*loopback)) << "on loopback it plans";
}

}  // namespace
}  // namespace pqc::scenario
