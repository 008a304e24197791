#include "core/units.h"

#include <gtest/gtest.h>

#include "core/protocol.h"
#include "core/slow_start.h"

namespace pqc {
namespace {

TEST(ParseDuration, AcceptsEveryUnit) {
  EXPECT_EQ(ParseDuration("250ns").value(), 250);
  EXPECT_EQ(ParseDuration("250us").value(), 250'000);
  EXPECT_EQ(ParseDuration("1.5ms").value(), 1'500'000);
  EXPECT_EQ(ParseDuration("2s").value(), 2'000'000'000);
  EXPECT_EQ(ParseDuration("5m").value(), 300'000'000'000);
  EXPECT_EQ(ParseDuration("1h").value(), 3'600'000'000'000);
  EXPECT_EQ(ParseDuration("0s").value(), 0);
}

TEST(ParseDuration, RejectsWithActionableMessage) {
  for (const char* bad : {"", "10", "ms", "-1s", "1x", "1 s", "nan", "inf s", "1e30h"}) {
    auto r = ParseDuration(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
    EXPECT_NE(r.error().message.find("duration"), std::string::npos) << r.error().message;
  }
  EXPECT_NE(ParseDuration("10").error().message.find("valid: ns, us, ms, s, m, h"),
            std::string::npos);
}

TEST(ParseSize, BinarySuffixes) {
  EXPECT_EQ(ParseSize("100B").value(), 100u);
  EXPECT_EQ(ParseSize("100").value(), 100u);
  EXPECT_EQ(ParseSize("10K").value(), 10'240u);
  EXPECT_EQ(ParseSize("100KiB").value(), 102'400u);
  EXPECT_EQ(ParseSize("1M").value(), 1'048'576u);
  EXPECT_EQ(ParseSize("1.5K").value(), 1'536u);
  EXPECT_EQ(ParseSize("2G").value(), 2'147'483'648u);
  EXPECT_FALSE(ParseSize("1.3B").ok());
  EXPECT_FALSE(ParseSize("10k").ok());  // case matters: k is not a unit here
  EXPECT_FALSE(ParseSize("-1K").ok());
  EXPECT_FALSE(ParseSize("1e300G").ok());
}

// Above 2^63 the value once came back as 2^63 (llround's long long overflowed); found by
// fuzz/units_fuzz.
TEST(ParseSize, FullUnsignedRange) {
  EXPECT_EQ(ParseSize("1e19B").value(), 10'000'000'000'000'000'000u);
  EXPECT_EQ(ParseSize("16G").value(), 17'179'869'184u);
  EXPECT_FALSE(ParseSize("2e19B").ok());
  EXPECT_FALSE(ParseSize("18446744073709551616").ok());  // 2^64
  EXPECT_EQ(ParseBitRate("1.5e19bit").value(), 15'000'000'000'000'000'000u);
}

TEST(ParseBitRate, SiUnits) {
  EXPECT_EQ(ParseBitRate("100mbit").value(), 100'000'000u);
  EXPECT_EQ(ParseBitRate("1gbit").value(), 1'000'000'000u);
  EXPECT_EQ(ParseBitRate("500kbit").value(), 500'000u);
  EXPECT_EQ(ParseBitRate("10mbps").value(), 80'000'000u);
  EXPECT_FALSE(ParseBitRate("100").ok());
  EXPECT_FALSE(ParseBitRate("0mbit").ok());
}

TEST(ParsePercent, WithAndWithoutSign) {
  EXPECT_DOUBLE_EQ(ParsePercent("0.5%").value(), 0.005);
  EXPECT_DOUBLE_EQ(ParsePercent("3").value(), 0.03);
  EXPECT_DOUBLE_EQ(ParsePercent("100%").value(), 1.0);
  EXPECT_FALSE(ParsePercent("101%").ok());
  EXPECT_FALSE(ParsePercent("%").ok());
  EXPECT_FALSE(ParsePercent("1%%").ok());
}

TEST(ParseRate, PerSecondMinuteHour) {
  EXPECT_DOUBLE_EQ(ParseRate("300").value(), 300);
  EXPECT_DOUBLE_EQ(ParseRate("300/s").value(), 300);
  EXPECT_DOUBLE_EQ(ParseRate("120/m").value(), 2);
  EXPECT_FALSE(ParseRate("0").ok());
  EXPECT_FALSE(ParseRate("5/d").ok());
}

TEST(FormatSize, CanonicalNames) {
  EXPECT_EQ(FormatSize(100), "100B");
  EXPECT_EQ(FormatSize(10'240), "10K");
  EXPECT_EQ(FormatSize(1'048'576), "1M");
  EXPECT_EQ(FormatSize(1'000), "1000B");
  for (const char* s : {"100B", "10K", "100K", "1M"})
    EXPECT_EQ(FormatSize(ParseSize(s).value()), s);
}

}  // namespace
}  // namespace pqc

// The window doubles per round trip in slow start: 10, then 20 more, then 40 more segments.
TEST(SlowStart, RoundTripsFollowTheDoublingWindow) {
  EXPECT_EQ(pqc::SlowStartRoundTrips(0), 1u);
  EXPECT_EQ(pqc::SlowStartRoundTrips(10), 1u);
  EXPECT_EQ(pqc::SlowStartRoundTrips(10.5), 2u);
  EXPECT_EQ(pqc::SlowStartRoundTrips(11), 2u);
  EXPECT_EQ(pqc::SlowStartRoundTrips(30), 2u);
  EXPECT_EQ(pqc::SlowStartRoundTrips(31), 3u);
  EXPECT_EQ(pqc::SlowStartRoundTrips(70), 3u);
  EXPECT_EQ(pqc::SlowStartRoundTrips(71), 4u);
  EXPECT_EQ(pqc::SlowStartRoundTrips(12, 4), 2u);  // a route's initcwnd 4: 4, 12, 28
  EXPECT_EQ(pqc::SlowStartRoundTrips(13, 4), 3u);
  // The seven-certificate ml-dsa-87 chain of the issue: Certificate 45,458 B + CertificateVerify
  // 4,635 B need at least 35 full segments, so 3 round trips (measured: 3.11 RTT at 50 ms).
  EXPECT_EQ(pqc::SegmentsFor(45'458 + 4'635), 35u);
  EXPECT_EQ(pqc::SlowStartRoundTrips(pqc::SegmentsFor(45'458 + 4'635)), 3u);
  EXPECT_EQ(pqc::SegmentsFor(1), 1u);
  EXPECT_EQ(pqc::SegmentsFor(1448), 1u);
  EXPECT_EQ(pqc::SegmentsFor(1449), 2u);
}

// Every formatter is read back by its parser to the same value: one formatter per quantity,
// used by arm names, stored settings and link descriptions alike.
TEST(Format, RoundTripsThroughItsParser) {
  for (int64_t ns : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1'000}, int64_t{1'500},
                     int64_t{250'000'000}, int64_t{1'000'000'000}, int64_t{1'500'000'000},
                     int64_t{86'400} * 1'000'000'000, int64_t{123'456'789}}) {
    const std::string text = pqc::FormatDuration(ns);
    auto back = pqc::ParseDuration(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.error().message;
    EXPECT_EQ(*back, ns) << text;
  }
  EXPECT_EQ(pqc::FormatDuration(0), "0ms");
  EXPECT_EQ(pqc::FormatDuration(1'500), "1500ns");
  EXPECT_EQ(pqc::FormatDuration(2'000'000'000), "2s");
  for (uint64_t bytes :
       {uint64_t{1}, uint64_t{100}, uint64_t{1000}, uint64_t{1024}, uint64_t{10'240},
        uint64_t{1} << 20, uint64_t{1} << 30, uint64_t{1'234'567}}) {
    const std::string text = pqc::FormatSize(bytes);
    auto back = pqc::ParseSize(text);
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(*back, bytes) << text;
  }
  for (uint64_t bps : {uint64_t{64}, uint64_t{500'000}, uint64_t{100'000'000},
                       uint64_t{1'000'000'000}, uint64_t{1'234'567}}) {
    const std::string text = pqc::FormatBitRate(bps);
    auto back = pqc::ParseBitRate(text);
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(*back, bps) << text;
  }
  for (double f : {0.0, 0.005, 0.01, 0.03, 0.07, 0.3, 0.5, 1.0, 0.123456789}) {
    const std::string text = pqc::FormatPercent(f);
    auto back = pqc::ParsePercent(text);
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(*back, f) << text;
  }
  // No decimal text divided by 100 gives 1/3 exactly: the closest is within an ulp or two.
  auto third = pqc::ParsePercent(pqc::FormatPercent(1.0 / 3));
  ASSERT_TRUE(third.ok());
  EXPECT_NEAR(*third, 1.0 / 3, 1e-15);
  EXPECT_EQ(pqc::FormatPercent(0.3), "30%");
  EXPECT_EQ(pqc::FormatPercent(0.03), "3%");
  EXPECT_EQ(pqc::FormatPercent(0.005), "0.5%");
}

TEST(Protocol, NamesAndListsParseAndBadOnesSayWhatIsValid) {
  EXPECT_EQ(*pqc::ParseProtocol("h1"), pqc::Protocol::kH1);
  EXPECT_EQ(*pqc::ParseProtocol("http/3"), pqc::Protocol::kH3);
  EXPECT_EQ(pqc::ProtocolName(pqc::Protocol::kH3), "h3");
  auto both = pqc::ParseProtocolList("h3,h1");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both, (std::vector<pqc::Protocol>{pqc::Protocol::kH3, pqc::Protocol::kH1}));
  EXPECT_EQ(*pqc::ParseProtocol("h2"), pqc::Protocol::kH2);
  EXPECT_EQ(pqc::ProtocolName(pqc::Protocol::kH2), "h2");
  EXPECT_FALSE(pqc::OverQuic(pqc::Protocol::kH2));
  EXPECT_TRUE(pqc::OverQuic(pqc::Protocol::kH3));
  auto spdy = pqc::ParseProtocol("spdy");
  ASSERT_FALSE(spdy.ok());
  EXPECT_NE(spdy.error().message.find("valid: h1"), std::string::npos) << spdy.error().message;
  EXPECT_NE(spdy.error().message.find("h2 for HTTP/2"), std::string::npos) << spdy.error().message;
  for (const char* bad : {"", "h1,", ",h3", "h1,h1", "h1,h3,h1", "H1"}) {
    auto list = pqc::ParseProtocolList(bad);
    EXPECT_FALSE(list.ok()) << bad;
    if (!list.ok()) {
      EXPECT_NE(list.error().message.find(std::string("'") + bad), std::string::npos)
          << list.error().message;
    }
  }
}
