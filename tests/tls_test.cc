// Real keys, certificates and handshakes through OpenSSL 3.5: the chain factory, the sizes
// table and the probe's three layers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tls/cert_chain.h"
#include "tls/cert_files.h"
#include "tls/chain_sizes.h"
#include "tls/context.h"
#include "tls/loopback_handshake.h"
#include "tls/probe.h"

namespace pqc {
namespace {

CertChain Chain(const char* text) {
  auto spec = ParseChainSpec(text);
  EXPECT_TRUE(spec.ok()) << text;
  auto chain = MakeChain(*spec);
  EXPECT_TRUE(chain.ok()) << (chain.ok() ? "" : chain.error().message);
  return std::move(chain).value();
}

TEST(ChainSpec, ParsesLeafFirstAndRejectsBadElements) {
  auto spec = ParseChainSpec("ecdsa-p256/rsa-2048/rsa-4096");
  ASSERT_TRUE(spec.ok());
  ASSERT_EQ(spec->links.size(), 3u);
  EXPECT_EQ(spec->links[0]->name, "ecdsa-p256");
  EXPECT_EQ(spec->links[2]->name, "rsa-4096");
  EXPECT_FALSE(ParseChainSpec("ml-dsa-65//ml-dsa-87").ok());
  auto bad = ParseChainSpec("ml-dsa-65/mldsa87");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("did you mean ml-dsa-87?"), std::string::npos);
}

TEST(CertChain, MixedChainsVerifyAgainstTheirRoot) {
  for (const char* text : {"ecdsa-p256", "ml-dsa-65/ml-dsa-87", "ecdsa-p256/rsa-2048/rsa-3072",
                           "ml-dsa-44/ecdsa-p384/ed25519", "ed25519/slh-dsa-sha2-128f"}) {
    CertChain chain = Chain(text);
    Status s = VerifyChain(chain);
    EXPECT_TRUE(s.ok()) << text << ": " << (s.ok() ? "" : s.error().message);
  }
}

TEST(CertChain, WrongRootDoesNotVerify) {
  CertChain a = Chain("ml-dsa-44/ml-dsa-65");
  CertChain b = Chain("ml-dsa-44/ml-dsa-65");
  std::swap(a.links.back(), b.links.back());  // a's leaf, b's root: signature cannot check out
  Status s = VerifyChain(a);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("does not verify"), std::string::npos);
}

TEST(ChainSizes, MatchTheDerFilesAndTheInitialWindowRule) {
  const auto dir = std::filesystem::temp_directory_path() / "pqc-bench-sizes-test";
  std::filesystem::remove_all(dir);
  CertChain chain = Chain("ml-dsa-87/ml-dsa-87/ml-dsa-87");
  auto sizes = MeasureChain(chain);
  ASSERT_TRUE(sizes.ok());
  auto files = WriteChainFiles(chain, dir.string());
  ASSERT_TRUE(files.ok()) << files.error().message;
  size_t sent = 0;
  for (size_t i = 0; i < chain.links.size(); ++i) {
    EXPECT_EQ(std::filesystem::file_size(files->cert_der[i]), sizes->certs[i].der_bytes);
    if (sizes->certs[i].sent) sent += sizes->certs[i].der_bytes;
    // ML-DSA-87 (FIPS 204): 2,592-byte public key, 4,627-byte signature.
    EXPECT_EQ(sizes->certs[i].signature_bytes, 4627u);
    EXPECT_GT(sizes->certs[i].public_key_bytes, 2592u);
  }
  EXPECT_EQ(sent, sizes->sent_der_bytes);
  EXPECT_EQ(sizes->certs.back().sent, false);  // the root is the client's trust anchor
  EXPECT_EQ(sizes->certificate_verify_bytes, 8u + 4627u);
  EXPECT_EQ(sizes->certificate_message_bytes, 8u + sent + 5u * 2u);
  EXPECT_TRUE(sizes->exceeds_initial_window());
  // Private keys are not readable by others.
  for (const auto& f : files->all) {
    if (f.ends_with(".key.pem")) {
      auto perms = std::filesystem::status(f).permissions();
      EXPECT_EQ(perms & std::filesystem::perms::all,
                std::filesystem::perms::owner_read | std::filesystem::perms::owner_write)
          << f;
    }
  }
  // A single ML-DSA-65 certificate and an ECDSA one fit in the initial window.
  for (const char* text : {"ml-dsa-65", "ecdsa-p256"}) {
    auto small = MeasureChain(Chain(text));
    ASSERT_TRUE(small.ok());
    EXPECT_FALSE(small->exceeds_initial_window()) << text;
  }
  std::filesystem::remove_all(dir);
}

TEST(Context, ClientGroupStringMarksKeyShares) {
  ClientTlsConfig cfg{.groups = {"X25519MLKEM768", "X25519"}};
  EXPECT_EQ(ClientGroupsString(cfg).value(), "*X25519MLKEM768:X25519");
  cfg.key_shares = {"X25519"};
  EXPECT_EQ(ClientGroupsString(cfg).value(), "X25519MLKEM768:*X25519");
  cfg.key_shares = {"MLKEM768"};
  EXPECT_FALSE(ClientGroupsString(cfg).ok());
}

TEST(LoopbackHandshake, HelloRetryWhenServerInsistsOnHybrid) {
  CertChain chain = Chain("ecdsa-p256");
  auto sctx = MakeServerContext({.groups = "X25519MLKEM768/X25519"}, chain);
  ASSERT_TRUE(sctx.ok());
  auto cctx = MakeClientContext({.groups = {"X25519MLKEM768", "X25519"},
                                 .key_shares = {"X25519"},
                                 .trust_anchors = {chain.root().cert.get()}});
  ASSERT_TRUE(cctx.ok());
  auto hs = LoopbackHandshake(sctx->get(), cctx->get());
  ASSERT_TRUE(hs.ok()) << hs.error().message;
  EXPECT_EQ(hs->group, "X25519MLKEM768");
  EXPECT_TRUE(hs->client_facts.hrr());
  EXPECT_EQ(hs->client_facts.client_hellos, 2);
  EXPECT_EQ(hs->sigalg, "ecdsa_secp256r1_sha256");
}

// One server with an ECDSA and an ML-DSA chain: OpenSSL serves each client the first scheme of
// its signature_algorithms that a chain can sign; no offered scheme fits → a handshake failure.
TEST(LoopbackHandshake, ServerWithTwoChainsServesEachClientTheOneItOffers) {
  CertChain ecdsa = Chain("ecdsa-p256");
  CertChain mldsa = Chain("ml-dsa-65/ml-dsa-87");
  const CertChain* both[] = {&ecdsa, &mldsa};
  auto sctx = MakeServerContext({.groups = "X25519MLKEM768:X25519"}, both);
  ASSERT_TRUE(sctx.ok()) << sctx.error().message;
  struct Kind {
    const char* sigalgs;
    const char* served;
    size_t min_cert_bytes;
  };
  for (const Kind& k :
       {Kind{"mldsa65:ecdsa_secp256r1_sha256", "mldsa65", 6000},
        Kind{"ecdsa_secp256r1_sha256:mldsa65", "ecdsa_secp256r1_sha256", 300},
        Kind{"ecdsa_secp256r1_sha256:rsa_pss_rsae_sha256", "ecdsa_secp256r1_sha256", 300},
        Kind{"", "mldsa65", 6000}}) {  // OpenSSL's default list: ML-DSA first
    auto cctx =
        MakeClientContext({.groups = {"X25519MLKEM768"},
                           .sigalgs = k.sigalgs,
                           .trust_anchors = {ecdsa.root().cert.get(), mldsa.root().cert.get()}});
    ASSERT_TRUE(cctx.ok()) << cctx.error().message;
    auto hs = LoopbackHandshake(sctx->get(), cctx->get());
    ASSERT_TRUE(hs.ok()) << k.sigalgs << ": " << hs.error().message;
    EXPECT_EQ(hs->sigalg, k.served) << k.sigalgs;
    EXPECT_GT(hs->client_facts.certificate_bytes, k.min_cert_bytes) << k.sigalgs;
  }
  auto ed = MakeClientContext({.groups = {"X25519MLKEM768"}, .sigalgs = "ed25519"});
  ASSERT_TRUE(ed.ok());
  EXPECT_FALSE(LoopbackHandshake(sctx->get(), ed->get()).ok());

  // One certificate per key type: a second ECDSA chain would silently replace the first.
  CertChain p384 = Chain("ecdsa-p384");
  const CertChain* same[] = {&ecdsa, &p384};
  auto refused = MakeServerContext({}, same);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("ecdsa-p256 and ecdsa-p384 both have a EC leaf key"),
            std::string::npos)
      << refused.error().message;
}

TEST(Context, SigalgListsAreCheckedByOpenSSL) {
  EXPECT_TRUE(CheckSigalgList("mldsa65:ecdsa_secp256r1_sha256").ok());
  auto bad = CheckSigalgList("mldsa65:ecdsa_p256");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'mldsa65:ecdsa_p256' is not a signature-algorithm list"),
            std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("ecdsa_secp256r1_sha256"), std::string::npos);
}

TEST(LoopbackHandshake, ResumesFromTicket) {
  CertChain chain = Chain("ml-dsa-65");
  auto sctx = MakeServerContext({.groups = "X25519MLKEM768"}, chain);
  auto cctx =
      MakeClientContext({.groups = {"X25519MLKEM768"}, .trust_anchors = {chain.root().cert.get()}});
  ASSERT_TRUE(sctx.ok() && cctx.ok());
  auto first = LoopbackHandshake(sctx->get(), cctx->get());
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_FALSE(first->resumed);
  EXPECT_EQ(first->sigalg, "mldsa65");
  EXPECT_GT(first->client_facts.certificate_bytes, 5000u);
  EXPECT_GT(first->client_facts.tickets_received, 0);
  auto second = LoopbackHandshake(sctx->get(), cctx->get(), first->session.get());
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_TRUE(second->resumed);
  EXPECT_EQ(second->client_facts.certificate_bytes, 0u);  // no certificate on resumption
  EXPECT_LT(second->client_bytes_read, first->client_bytes_read);
}

TEST(Probe, HybridAndPqGroupsPassEveryLayer) {
  for (const char* name : {"X25519", "secp256r1", "X25519MLKEM768", "SecP256r1MLKEM768",
                           "SecP384r1MLKEM1024", "MLKEM768"}) {
    GroupProbe p = ProbeGroup(*FindGroup(name).value());
    EXPECT_TRUE(p.primitive) << name << ": " << p.error;
    EXPECT_TRUE(p.tls) << name << ": " << p.error;
    EXPECT_EQ(p.negotiated, name);
    EXPECT_EQ(p.error, "");
  }
}

TEST(Probe, MlDsaPassesEveryLayer) {
  for (const char* name : {"ml-dsa-44", "ml-dsa-65", "ml-dsa-87"}) {
    SignatureProbe p = ProbeSignature(*FindSignature(name).value());
    EXPECT_TRUE(p.primitive && p.x509 && p.tls) << name << ": " << p.error;
    EXPECT_EQ(p.negotiated, std::string("mldsa") + (name + 7));
  }
}

TEST(Probe, SlhDsaStopsAtTheTlsLayerWithOpenSslsReason) {
  SignatureProbe p = ProbeSignature(*FindSignature("slh-dsa-sha2-128f").value());
  EXPECT_TRUE(p.primitive) << p.error;
  EXPECT_TRUE(p.x509) << p.error;
  EXPECT_FALSE(p.tls);
  EXPECT_NE(p.error.find("unknown certificate type"), std::string::npos) << p.error;
}

}  // namespace
}  // namespace pqc
