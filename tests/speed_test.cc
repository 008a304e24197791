// speed: the crypto-floor model's arithmetic on a hand-made table (every term of the model,
// HelloRetryRequest, resumption, chains), and a real measurement of every algorithm with a
// tiny budget (each must run and cost something).
#include <gtest/gtest.h>

#include "speed/crypto_floor.h"
#include "speed/speed_output.h"
#include "speed/speed_table.h"
#include "tls/algorithms.h"

namespace pqc::speed {
namespace {

SpeedEntry E(std::string alg, bool group, SpeedOp op, double us) {
  return SpeedEntry{std::move(alg), group, op, us, 1e6 / us, 1, 1};
}

SpeedTable HandMade() {
  SpeedTable t;
  t.entries = {
      E("X25519", true, SpeedOp::kKeygen, 30),
      E("X25519", true, SpeedOp::kDerive, 40),
      E("X25519MLKEM768", true, SpeedOp::kKeygen, 100),
      E("X25519MLKEM768", true, SpeedOp::kEncaps, 110),
      E("X25519MLKEM768", true, SpeedOp::kDecaps, 90),
      E("ecdsa-p256", false, SpeedOp::kSign, 20),
      E("ecdsa-p256", false, SpeedOp::kVerify, 60),
      E("ml-dsa-65", false, SpeedOp::kSign, 200),
      E("ml-dsa-65", false, SpeedOp::kVerify, 70),
      E("ml-dsa-87", false, SpeedOp::kSign, 300),
      E("ml-dsa-87", false, SpeedOp::kVerify, 110),
  };
  return t;
}

ChainSpec Chain(const char* text) {
  return ParseChainSpec(text).value();
}

TEST(CryptoFloorTest, FullEcdhWithSelfSignedLeaf) {
  auto f = PredictHandshakeCrypto(HandMade(), "X25519", {}, Chain("ecdsa-p256"), false);
  ASSERT_TRUE(f.ok()) << f.error().message;
  // client: keygen 30 + derive 40 + CertificateVerify verify 60 (the lone leaf is trusted)
  EXPECT_DOUBLE_EQ(f->client_us, 130);
  // server: keygen 30 + derive 40 + sign 20
  EXPECT_DOUBLE_EQ(f->server_us, 90);
}

TEST(CryptoFloorTest, FullKemWithTwoLinkChain) {
  auto f =
      PredictHandshakeCrypto(HandMade(), "X25519MLKEM768", {}, Chain("ml-dsa-65/ml-dsa-87"), false);
  ASSERT_TRUE(f.ok()) << f.error().message;
  // client: keygen 100 + decaps 90 + CV verify (ml-dsa-65) 70 + leaf signed by root (ml-dsa-87) 110
  EXPECT_DOUBLE_EQ(f->client_us, 370);
  // server: encaps 110 + sign (ml-dsa-65) 200
  EXPECT_DOUBLE_EQ(f->server_us, 310);
  EXPECT_EQ(f->terms.size(), 6u);
}

TEST(CryptoFloorTest, ThreeLinkChainVerifiesEachIssuer) {
  auto f = PredictHandshakeCrypto(HandMade(), "X25519", {}, Chain("ecdsa-p256/ml-dsa-65/ml-dsa-87"),
                                  false);
  ASSERT_TRUE(f.ok()) << f.error().message;
  // client: 30 + 40 + CV 60 + leaf by ml-dsa-65 70 + intermediate by ml-dsa-87 110
  EXPECT_DOUBLE_EQ(f->client_us, 310);
  EXPECT_DOUBLE_EQ(f->server_us, 90);
}

TEST(CryptoFloorTest, ResumedKeepsTheKeyExchangeOnly) {
  auto f =
      PredictHandshakeCrypto(HandMade(), "X25519MLKEM768", {}, Chain("ml-dsa-65/ml-dsa-87"), true);
  ASSERT_TRUE(f.ok());
  EXPECT_DOUBLE_EQ(f->client_us, 190);
  EXPECT_DOUBLE_EQ(f->server_us, 110);
}

TEST(CryptoFloorTest, TwoSharesAndHelloRetryRequest) {
  // Two shares sent, the hybrid negotiated: both keygens count.
  auto two = PredictHandshakeCrypto(HandMade(), "X25519MLKEM768", {"X25519MLKEM768", "X25519"},
                                    Chain("ecdsa-p256"), true);
  ASSERT_TRUE(two.ok());
  EXPECT_DOUBLE_EQ(two->client_us, 100 + 30 + 90);
  // Only an X25519 share sent, the hybrid negotiated: a HelloRetryRequest, one more keygen.
  auto hrr =
      PredictHandshakeCrypto(HandMade(), "X25519MLKEM768", {"X25519"}, Chain("ecdsa-p256"), true);
  ASSERT_TRUE(hrr.ok());
  EXPECT_DOUBLE_EQ(hrr->client_us, 30 + 100 + 90);
}

TEST(CryptoFloorTest, MissingEntryIsAnError) {
  auto f = PredictHandshakeCrypto(HandMade(), "MLKEM768", {}, Chain("ecdsa-p256"), false);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("MLKEM768"), std::string::npos);
}

TEST(CryptoFloorTest, ParsesArms) {
  auto a = ParseFloorArm("X25519MLKEM768:ml-dsa-65/ml-dsa-87:resume");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->group, "X25519MLKEM768");
  EXPECT_TRUE(a->resumed);
  EXPECT_EQ(a->chain.links.size(), 2u);
  EXPECT_EQ(AlgorithmsFor(*a),
            (std::vector<std::string>{"X25519MLKEM768", "ml-dsa-65", "ml-dsa-87"}));
  EXPECT_FALSE(ParseFloorArm("X25519").ok());
  EXPECT_FALSE(ParseFloorArm("X25519:ml-dsa-66").ok());
  EXPECT_FALSE(ParseFloorArm("X25518:ecdsa-p256").ok());
}

TEST(SpeedTableTest, EveryAlgorithmIsMeasured) {
  SpeedOptions o;
  o.per_op = 1'000'000;  // 1 ms per operation: at least one run of each
  o.batches = 1;
  auto t = MeasureSpeed(o);
  ASSERT_TRUE(t.ok()) << t.error().message;
  for (const GroupInfo& g : AllGroups()) {
    for (SpeedOp op : OpsFor(true, g.is_kem)) {
      auto us = t->Micros(g.name, op);
      ASSERT_TRUE(us.has_value()) << g.name << " " << SpeedOpName(op);
      EXPECT_GT(*us, 0) << g.name;
    }
  }
  for (const SignatureInfo& s : AllSignatures()) {
    for (SpeedOp op : OpsFor(false, false)) {
      auto us = t->Micros(s.name, op);
      ASSERT_TRUE(us.has_value()) << s.name << " " << SpeedOpName(op);
      EXPECT_GT(*us, 0) << s.name;
    }
  }
  for (const SpeedEntry& e : t->entries) EXPECT_GT(e.ops_per_s, 0) << e.algorithm;
  nlohmann::json j = SpeedJson(*t, {});
  EXPECT_EQ(j["entries"].size(), t->entries.size());
}

TEST(SpeedTableTest, UnknownNameSuggests) {
  SpeedOptions o;
  o.only = {"ml-dsa-66"};
  auto t = MeasureSpeed(o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("ml-dsa-6"), std::string::npos) << t.error().message;
}

}  // namespace
}  // namespace pqc::speed
