#include "tls/algorithms.h"

#include <gtest/gtest.h>

#include "tls/inspector.h"

namespace pqc {
namespace {

TEST(Algorithms, EveryDesignNameResolves) {
  for (const char* g : {"X25519", "secp256r1", "X25519MLKEM768", "SecP256r1MLKEM768",
                        "SecP384r1MLKEM1024", "MLKEM512", "MLKEM768", "MLKEM1024"}) {
    EXPECT_TRUE(FindGroup(g).ok()) << g;
  }
  for (const char* s :
       {"ecdsa-p256", "ecdsa-p384", "rsa-2048", "rsa-3072", "rsa-4096", "ed25519", "ml-dsa-44",
        "ml-dsa-65", "ml-dsa-87", "slh-dsa-sha2-128f", "slh-dsa-sha2-128s"}) {
    EXPECT_TRUE(FindSignature(s).ok()) << s;
  }
}

TEST(Algorithms, UnknownNameSuggestsNearestAndListsValid) {
  auto r = FindGroup("x25519mlkem768");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("did you mean X25519MLKEM768?"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("valid: X25519, secp256r1"), std::string::npos);
  auto s = FindSignature("mldsa65");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("did you mean ml-dsa-65?"), std::string::npos);
  auto far = FindSignature("quantum-magic");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().message.find("did you mean"), std::string::npos);
  // Naming aids are not certificate types.
  EXPECT_FALSE(FindSignature("ed448").ok());
}

TEST(Algorithms, GroupListParsing) {
  auto l = ParseGroupList("X25519MLKEM768:X25519");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l, (std::vector<std::string>{"X25519MLKEM768", "X25519"}));
  EXPECT_FALSE(ParseGroupList("X25519::MLKEM768").ok());
  EXPECT_FALSE(ParseGroupList("").ok());
  EXPECT_FALSE(ParseGroupList("X25519:P-256").ok());
}

TEST(Algorithms, CodepointNames) {
  EXPECT_EQ(SignatureSchemeName(0x0905), "mldsa65");
  EXPECT_EQ(SignatureSchemeName(0x0403), "ecdsa_secp256r1_sha256");
  EXPECT_EQ(SignatureSchemeName(0x0805), "rsa_pss_rsae_sha384");
  EXPECT_EQ(SignatureSchemeName(0xfefe), "0xfefe");
  EXPECT_EQ(GroupName(0x11ec), "X25519MLKEM768");
}

TEST(Inspector, ReadsSchemeSizesAndHelloRetry) {
  HandshakeFacts f;
  std::vector<uint8_t> hrr(40, 0);
  hrr[0] = 2;
  const uint8_t magic[32] = {0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C,
                             0x02, 0x1E, 0x65, 0xB8, 0x91, 0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB,
                             0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};
  std::copy(std::begin(magic), std::end(magic), hrr.begin() + 6);
  ObserveHandshakeMessage(f, true, hrr.data(), hrr.size());
  EXPECT_TRUE(f.hrr());
  EXPECT_EQ(f.server_hello_bytes, 0u);
  std::vector<uint8_t> sh(90, 0x11);
  sh[0] = 2;
  ObserveHandshakeMessage(f, true, sh.data(), sh.size());
  EXPECT_EQ(f.server_hello_bytes, 90u);
  EXPECT_EQ(f.hrr_count, 1);
  std::vector<uint8_t> cv = {15, 0, 0, 10, 0x09, 0x05, 0, 4, 1, 2, 3, 4};
  ObserveHandshakeMessage(f, true, cv.data(), cv.size());
  EXPECT_EQ(f.signature_scheme, 0x0905);
  EXPECT_EQ(f.certificate_verify_bytes, cv.size());
  // The client's own CertificateVerify (mutual TLS) is not the server's.
  cv[5] = 0x04;
  ObserveHandshakeMessage(f, false, cv.data(), cv.size());
  EXPECT_EQ(f.signature_scheme, 0x0905);
}

}  // namespace
}  // namespace pqc
