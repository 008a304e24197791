// The terminal report's round-trip table against the slow-start model: read from a real RTT
// sweep (tests/data/summary_rtt_sweep.json, made by tests/data/make_fixtures.sh) and from the
// same summary with one arm's flight made as large as the seven-certificate ml-dsa-87
// chain (35 segments, 3.11 RTT measured at 50 ms), which the old model flagged "UNEXPECTED".
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "report/report_files.h"
#include "report/summary_json.h"
#include "test_paths.h"

namespace pqc {
namespace {

nlohmann::ordered_json Fixture(const std::string& name) {
  std::ifstream in(std::string(PQC_TEST_DATA_DIR) + "/" + name);
  return nlohmann::ordered_json::parse(in);
}

std::string Table(const nlohmann::ordered_json& document) {
  auto summary = report::ReadSummary(document);
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  if (!summary) return {};
  std::ostringstream out;
  Status st = report::WriteReport(out, *summary, report::Format::kTable);
  EXPECT_TRUE(st.ok()) << st.error().message;
  return out.str();
}

// The row of the round-trip table for `label` (the table follows its heading).
std::string Row(const std::string& table, const std::string& label) {
  const size_t heading = table.find("round trips of the fresh handshake");
  if (heading == std::string::npos) return {};
  std::istringstream in(table.substr(heading));
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(label) != std::string::npos) return line;
  }
  return {};
}

// Findings first: sentences from the verdicts, each with its interval, before any table.
TEST(Findings, OpenTheReportWithEveryComparisonAndItsInterval) {
  const std::string table = Table(Fixture("summary_fresh_study.json"));
  const size_t findings = table.find("findings");
  ASSERT_NE(findings, std::string::npos) << table;
  EXPECT_LT(findings, table.find("connect (ms)"));
  // Three trials of a shared machine: the hybrid's cost is within what trials disagree by, so
  // the finding says what it cannot rule out and how many trials would resolve ±2 %.
  const size_t sentence = table.find(
      "X25519MLKEM768 vs X25519: handshake p50 no difference detectable above ±0.525 ms (to "
      "resolve ±2 % (");
  EXPECT_NE(sentence, std::string::npos) << table;
  EXPECT_LT(sentence, table.find("connect (ms)"));
  // The server's extra CPU, paired by block over 3 blocks.
  EXPECT_NE(table.find("the server spends +5 % CPU per handshake [-17 %, +28 %] (no difference "
                       "detectable)"),
            std::string::npos)
      << table;
  // How sure: the variance between trials, per arm.
  EXPECT_NE(table.find("how sure: variance between trials (p50)"), std::string::npos) << table;
  // A failed arm is named among the findings, with its reason.
  const std::string failed = Table(Fixture("summary_failed_slhdsa.json"));
  EXPECT_NE(failed.find("ml-dsa-65 vs ecdsa-p256: handshake p50 +1.161 ms [0.820, 1.502]"),
            std::string::npos)
      << failed;
  EXPECT_NE(failed.find("slh-dsa-sha2-128f FAILED: "), std::string::npos) << failed;
  // A payload sweep: the response per size too, "no difference detectable" said as such.
  const std::string sweep = Table(Fixture("summary_payload_sweep.json"));
  EXPECT_NE(sweep.find("X25519MLKEM768 · 10K vs X25519MLKEM768 · OK: response p50 no difference "
                       "detectable"),
            std::string::npos)
      << sweep;
  EXPECT_NE(sweep.find("X25519 · 1M vs X25519 · OK: response p50 +0.592 ms [0.510, 0.675]"),
            std::string::npos)
      << sweep;
}

TEST(RoundTripTable, RealSweepMatchesTheModel) {
  const std::string table = Table(Fixture("summary_rtt_sweep.json"));
  EXPECT_NE(table.find("doubling each round trip"), std::string::npos) << table;
  EXPECT_EQ(table.find("UNEXPECTED"), std::string::npos) << table;
  EXPECT_NE(Row(table, "ecdsa-p256 · rtt150").find("1 (fits)"), std::string::npos) << table;
}

TEST(RoundTripTable, AFlightOfThirtyFiveSegmentsTakesThreeRoundTrips) {
  nlohmann::ordered_json summary = Fixture("summary_rtt_sweep.json");
  bool changed = false;
  for (auto& arm : summary["arms"]) {
    if (arm["label"] != "ml-dsa-87 · rtt150") continue;
    arm["bytes"]["server_first_flight_segments"] = 35.0;
    arm["bytes"]["server_first_flight"] = 51500.0;
    arm["phases"]["handshake"]["p50"] = 3.11 * 150'000.0;  // µs
    changed = true;
  }
  ASSERT_TRUE(changed);
  const std::string row = Row(Table(summary), "ml-dsa-87 · rtt150");
  EXPECT_NE(row.find("3 (slow start: 35 segments)"), std::string::npos) << row;
  EXPECT_NE(row.find("3.11"), std::string::npos) << row;
  EXPECT_EQ(row.find("UNEXPECTED"), std::string::npos) << row;
}

// An h3 arm whose server validated addresses (quic_retry = true): the Retry and the client's
// second Initial take a round trip before the flight, which then goes whole (2 RTTs); a
// handshake measured at 3 — as X25519MLKEM768's two-datagram ClientHello is after a Retry
// against OpenSSL 3.5's client (docs/guide.md, "Exposed serve") — is flagged.
TEST(RoundTripTable, ARetryCostsOneRoundTripMore) {
  nlohmann::ordered_json summary = Fixture("summary_rtt_sweep.json");
  auto with_retry = [&](double rtts) {
    for (auto& arm : summary["arms"]) {
      if (arm["label"] != "ecdsa-p256 · rtt150") continue;
      arm["factors"]["protocol"] = "h3";
      arm["factors"]["quic_retry"] = true;
      arm["phases"]["handshake"]["p50"] = rtts * 150'000.0;  // µs
    }
    return Row(Table(summary), "ecdsa-p256 · rtt150");
  };
  const std::string two = with_retry(2.07);
  EXPECT_NE(two.find("2 (QUIC: a Retry first, then the whole flight)"), std::string::npos) << two;
  EXPECT_EQ(two.find("UNEXPECTED"), std::string::npos) << two;
  EXPECT_NE(with_retry(3.09).find("3 UNEXPECTED"), std::string::npos);
  // Without the setting, the same h3 arm's flight is within 3× its Initials: 1.
  summary = Fixture("summary_rtt_sweep.json");
  for (auto& arm : summary["arms"]) {
    if (arm["label"] == "ecdsa-p256 · rtt150") arm["factors"]["protocol"] = "h3";
  }
  EXPECT_NE(Row(Table(summary), "ecdsa-p256 · rtt150").find("1 (QUIC: "), std::string::npos);
}

}  // namespace
}  // namespace pqc
