// summary_fixtures — the summaries of real runs in tests/data (made by
// tests/data/make_fixtures.sh), as the parameters of the tests that go through each one.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace pqc {

inline const auto kSummaryFixtures = ::testing::Values(
    "summary_fresh_study.json", "summary_rtt_sweep.json", "summary_payload_sweep.json",
    "summary_failed_slhdsa.json", "summary_incomplete.json", "summary_script_title.json",
    "summary_stopped_study.json");

// SummaryFixtureName: "fresh_study" for summary_fresh_study.json (a test name's last part).
inline std::string SummaryFixtureName(const ::testing::TestParamInfo<std::string>& fixture) {
  const std::string& file = fixture.param;
  const size_t from = file.find('_') + 1;
  return file.substr(from, file.rfind('.') - from);
}

}  // namespace pqc
