// summary_json_test — the summary's one writer and one reader against the documents real runs
// wrote (tests/data/summary_*.json, made by tests/data/make_fixtures.sh with
// `report --format json`): each reads into the typed summary and writes back byte for byte, key
// order included, and malformed documents are refused with a message, never an exception.
#include "report/summary_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "summary_fixtures.h"
#include "test_paths.h"

namespace pqc {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class SummaryFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(SummaryFixture, ReadsAndWritesBackByteForByte) {
  const std::string text = ReadAll(fs::path(PQC_TEST_DATA_DIR) / GetParam());
  ASSERT_FALSE(text.empty());
  auto summary = report::ParseSummary(text);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_FALSE(summary->arms.empty());
  EXPECT_EQ(report::SummaryJson(*summary).dump(2) + "\n", text);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SummaryFixture, kSummaryFixtures, SummaryFixtureName);

TEST(StudySummaryJson, UncomputableNumbersAreNullNeverZero) {
  report::Summary s;
  report::ArmSummary& arm = s.arms.emplace_back();
  arm.phases[static_cast<size_t>(Phase::kHandshake)].emplace().p50 = report::Finite(NAN);
  const nlohmann::ordered_json doc = report::SummaryJson(s);
  EXPECT_TRUE(doc["arms"][0]["phases"]["handshake"]["p50"].is_null());
  EXPECT_TRUE(doc["arms"][0]["bytes"]["certificate"].is_null());
  EXPECT_EQ(doc["arms"][0]["phases"].size(), 1u);  // phases without samples are left out
  auto back = report::ReadSummary(doc);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->arms[0].phase(Phase::kHandshake)->p50.has_value());
  EXPECT_EQ(back->arms[0].phase(Phase::kConnect), nullptr);
}

// A schema-1 document (intervals over connections, before the trial was the replicate) is
// still read: the later fields are absent, and the run says what its intervals were over.
TEST(StudySummaryJson, ReadsSchemaOneWithoutTheLaterFields) {
  const std::string text = ReadAll(fs::path(PQC_TEST_DATA_DIR) / "summary_fresh_study.json");
  auto doc = nlohmann::ordered_json::parse(text);
  doc["schema"] = "pqc-bench/summary/1";
  doc["run"].erase("replicate");
  doc["run"].erase("resolve_pct");
  for (auto& arm : doc["arms"]) {
    for (auto& [name, phase] : arm["phases"].items()) phase.erase("variance");
  }
  for (auto& c : doc["comparisons"]) {
    c.erase("control");
    for (auto& [name, d] : c["diffs"].items()) {
      d.erase("replicates");
      d.erase("plan");
    }
  }
  auto one = report::ReadSummary(doc);
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->run.replicate, "connection");
  EXPECT_FALSE(one->arms[0].phase(Phase::kHandshake)->variance.has_value());
  EXPECT_FALSE(one->comparisons[0].diffs.p50.plan.has_value());
  // The same keys missing from a schema-2 document are read as absent too, not refused.
  doc["schema"] = "pqc-bench/summary/2";
  auto two = report::ReadSummary(doc);
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->run.replicate, "trial");
}

TEST(StudySummaryJson, RefusesOtherSchemasAndBrokenText) {
  const std::string text = ReadAll(fs::path(PQC_TEST_DATA_DIR) / "summary_fresh_study.json");
  auto doc = nlohmann::ordered_json::parse(text);
  doc["schema"] = "pqc-bench/summary/0";
  auto old = report::ReadSummary(doc);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.error().message.find("expected \"pqc-bench/summary/2\" (or the older "
                                     "\"pqc-bench/summary/1\")"),
            std::string::npos)
      << old.error().message;
  auto cut = report::ParseSummary(text.substr(0, text.size() / 2));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().kind, ErrorKind::kConfig);
  doc["schema"] = "pqc-bench/summary/2";
  doc["arms"][0]["phases"]["handshake_typo"] = doc["arms"][0]["phases"]["handshake"];
  auto typo = report::ReadSummary(doc);
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("arms[0].phases.handshake_typo: not a phase"),
            std::string::npos)
      << typo.error().message;
  doc = nlohmann::ordered_json::parse(text);
  doc["trials"][0]["arm"] = -1;
  auto negative = report::ReadSummary(doc);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("trials[0].arm: expected a non-negative integer"),
            std::string::npos)
      << negative.error().message;
  doc = nlohmann::ordered_json::parse(text);
  doc["arms"][0]["status"] = "maybe";
  auto status = report::ReadSummary(doc);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find(
                "arms[0].status: 'maybe' is not an arm status (valid: ok, invalid, failed)"),
            std::string::npos)
      << status.error().message;
}

}  // namespace
}  // namespace pqc
