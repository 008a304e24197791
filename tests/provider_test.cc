// provider_test — OpenSSL providers as the user names them: a provider that is not there is an
// error naming it, the directory searched and OpenSSL's reason; the set-up's FIPS provider
// loads (its self-test passes) into a library context of its own, and the client made in it
// completes real handshakes with a server the target driver started under the same providers,
// on the embedded server and on nginx; `probe` under the FIPS provider names it per cell.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_child.h"
#include "client/load_runner.h"
#include "records/summary.h"
#include "target/target.h"
#include "tls/cert_chain.h"
#include "tls/cert_files.h"
#include "tls/context.h"
#include "tls/providers.h"
#include "test_paths.h"

namespace pqc {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const ProviderSpec kFips{.names = {"fips", "base"}, .property_query = "fips=yes"};

TEST(Providers, AMissingProviderIsAnErrorNamingItTheDirectoryAndTheReason) {
  auto lc = LibraryContext::Load({.names = {"nosuch"}}, /*own=*/true);
  ASSERT_FALSE(lc.ok());
  const std::string& m = lc.error().message;
  EXPECT_TRUE(Contains(m, "provider 'nosuch' could not be loaded from ")) << m;
  EXPECT_TRUE(Contains(m, "ossl-modules")) << "the directory searched: " << m;
  EXPECT_TRUE(Contains(m, "nosuch.so does not exist")) << m;
  EXPECT_TRUE(Contains(m, "could not load the shared library")) << "OpenSSL's reason: " << m;
  auto dir = LibraryContext::Load({.names = {"fips", "base"}, .path = "/nonexistent-dir"}, true);
  ASSERT_FALSE(dir.ok());
  EXPECT_TRUE(Contains(dir.error().message, "--provider-path /nonexistent-dir: no such directory"))
      << dir.error().message;
  auto query = LibraryContext::Load({.property_query = "fips=="}, true);
  ASSERT_FALSE(query.ok());
  EXPECT_TRUE(Contains(query.error().message, "'fips==' is not a property query"))
      << query.error().message;
  auto alone = LibraryContext::Load({.names = {"fips"}}, true);
  ASSERT_FALSE(alone.ok());
  EXPECT_TRUE(Contains(alone.error().message, "add --provider base")) << alone.error().message;
  EXPECT_FALSE(ParseProviderNames("fips,,base").ok());
  EXPECT_FALSE(ParseProviderNames("fips,fips").ok());
  EXPECT_EQ(ParseProviderNames("fips+base").value(), (std::vector<std::string>{"fips", "base"}));
  EXPECT_EQ(kFips.Label(), "fips+base (fips=yes)");
  EXPECT_EQ(ProviderSpec{}.Label(), "default");
}

TEST(Providers, TheFipsProviderLoadsAndRefusesWhatItDoesNotApprove) {
  auto lc = LibraryContext::Load(kFips, true);
  ASSERT_TRUE(lc.ok()) << lc.error().message;
  OSSL_LIB_CTX* ctx = (*lc)->get();
  EXPECT_EQ(OSSL_PROVIDER_available(ctx, "fips"), 1);
  EXPECT_EQ(OSSL_PROVIDER_available(ctx, "default"), 0) << "no fallback to the default provider";
  EVP_MD* sha256 = EVP_MD_fetch(ctx, "SHA256", nullptr);
  EXPECT_NE(sha256, nullptr);
  EVP_MD_free(sha256);
  EVP_KEM* mlkem = EVP_KEM_fetch(ctx, "ML-KEM-768", nullptr);
  EXPECT_NE(mlkem, nullptr) << "ML-KEM is in OpenSSL 3.5's FIPS provider";
  if (mlkem != nullptr) {
    EXPECT_STREQ(OSSL_PROVIDER_get0_name(EVP_KEM_get0_provider(mlkem)), "fips");
  }
  EVP_KEM_free(mlkem);
  EVP_MD* md5 = EVP_MD_fetch(ctx, "MD5", nullptr);
  EXPECT_EQ(md5, nullptr) << "MD5 is not approved";
  EVP_MD_free(md5);
}

// The target drivers start their servers under the arm's providers, and the client of the
// same providers completes every connection: on the embedded server and on nginx.
TEST(Providers, EveryDriverServesUnderTheFipsProvider) {
  test::TempDir tmp("providers-target");
  auto spec = ParseChainSpec("ml-dsa-65");
  ASSERT_TRUE(spec.ok());
  auto chain = MakeChain(*spec);
  ASSERT_TRUE(chain.ok()) << chain.error().message;
  auto files = WriteChainFiles(*chain, tmp.path() + "/cert");
  ASSERT_TRUE(files.ok()) << files.error().message;
  auto lc = LibraryContext::Load(kFips, true);
  ASSERT_TRUE(lc.ok()) << lc.error().message;
  target::ServerConfig config;
  config.certs = {{files->chain_pem, files->leaf_key_pem}};
  config.groups = "SecP256r1MLKEM768:X25519MLKEM768";
  config.providers = kFips.names;
  config.property_query = kFips.property_query;
  auto fips_config = FipsModuleConfig(kFips);
  ASSERT_TRUE(fips_config.ok()) << fips_config.error().message;
  config.fips_config = *fips_config;
  for (auto& t :
       {target::MakeEmbeddedTarget(PQC_BENCH_BIN), target::MakeNginxTarget(PQC_NGINX_BIN)}) {
    SCOPED_TRACE(t->name());
    const std::string work = tmp.path() + "/" + std::string(t->name());
    std::filesystem::create_directories(work);
    auto addr = t->Start(config, target::Placement{}, work);
    ASSERT_TRUE(addr.ok()) << addr.error().message;
    LoadOptions o;
    o.target = *addr;
    o.mix = {{ConnMode::kFresh, 1.0}};
    o.mode_text = "fresh";
    o.rate = 40;
    o.duration = 500'000'000;
    o.warmup = 0;
    o.tls.groups = {"SecP256r1MLKEM768"};
    o.tls.trust_anchors = {chain->root().cert.get()};
    o.tls.libctx = (*lc)->get();
    o.tls.propq = (*lc)->property_query();
    o.expect_group = "SecP256r1MLKEM768";
    o.expect_sigalg = "ml-dsa-65";
    o.max_lag_p99 = 10'000'000'000;
    o.max_cpu_share = 10;
    auto r = RunLoad(o, nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    size_t measured = 0;
    for (const ConnectionRecord& rec : r->connections) {
      if (!rec.measured) continue;
      ++measured;
      ASSERT_TRUE(rec.ok()) << ErrorClassName(rec.error) << ": " << rec.error_detail;
      EXPECT_EQ(rec.signature_scheme, 0x0905);
    }
    EXPECT_GE(measured, 15u);
    EXPECT_TRUE(Summarize(*r).valid());
    ASSERT_TRUE(t->Stop().ok());
  }
}

TEST(Providers, ProbeUnderTheFipsProviderNamesItPerCell) {
  test::TempDir tmp("providers-probe");
  auto probe = test::WaitBench(
      test::SpawnBench({"probe", "--json", "--provider", "fips", "--provider", "base",
                        "--property-query", "fips=yes", "--only",
                        "X25519MLKEM768,SecP256r1MLKEM768,X25519,ml-dsa-65,ecdsa-p256,"
                        "slh-dsa-sha2-128f"},
                       tmp.path()),
      std::chrono::seconds(60));
  ASSERT_EQ(probe.code, 0) << probe.output;
  auto j = nlohmann::json::parse(probe.output.substr(probe.output.find('{')));
  std::map<std::string, nlohmann::json> rows;
  for (const auto& r : j["groups"]) rows[r["name"]] = r;
  for (const auto& r : j["signatures"]) rows[r["name"]] = r;
  EXPECT_EQ(rows["SecP256r1MLKEM768"]["primitive"], true);
  EXPECT_EQ(rows["SecP256r1MLKEM768"]["provider"], "fips");
  EXPECT_EQ(rows["SecP256r1MLKEM768"]["tls"], true);
  EXPECT_EQ(rows["SecP256r1MLKEM768"]["tls_provider"], "fips");
  EXPECT_EQ(rows["X25519"]["tls"], false) << rows["X25519"].dump();
  EXPECT_EQ(rows["ml-dsa-65"]["provider"], "fips");
  EXPECT_EQ(rows["ml-dsa-65"]["tls"], true);
  EXPECT_EQ(rows["ml-dsa-65"]["tls_listed"], true);
  EXPECT_EQ(rows["slh-dsa-sha2-128f"]["tls_listed"], false);
  bool fips_listed = false;
  for (const auto& p : j["build"]["providers"]) fips_listed |= p["name"] == "fips";
  EXPECT_TRUE(fips_listed) << j["build"].dump();

  auto missing = test::WaitBench(test::SpawnBench({"probe", "--provider", "nosuch"}, tmp.path()),
                                 std::chrono::seconds(30));
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_TRUE(Contains(missing.output, "provider 'nosuch' could not be loaded from"))
      << missing.output;
}

}  // namespace
}  // namespace pqc
