// Unit tests of the link's pure parts: profile parsing and description, Gilbert–Elliott loss
// statistics against their closed form, tail-drop accounting and release-time arithmetic of
// the scheduler, and the release-error histogram. No namespaces, no root.
#include <gtest/gtest.h>

#include <cmath>

#include "link/error_histogram.h"
#include "link/link_profile.h"
#include "link/mover.h"
#include "link/netns.h"
#include "link/packet_scheduler.h"

namespace pqc::link {
namespace {

constexpr Nanos kMs = 1'000'000;
constexpr Nanos kUs = 1'000;

TEST(LinkProfileTest, ParsesEveryField) {
  LinkProfileText t;
  t.rtt = "70ms";
  t.jitter = "1ms";
  t.loss = "0.5%";
  t.burst_loss = "1%,30%";
  t.rate = "100mbit";
  t.queue = "200";
  t.seed = "7";
  auto p = ParseLinkProfile(t);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->rtt, 70 * kMs);
  EXPECT_EQ(p->jitter, 1 * kMs);
  EXPECT_DOUBLE_EQ(p->loss, 0.005);
  EXPECT_DOUBLE_EQ(p->ge_p, 0.01);
  EXPECT_DOUBLE_EQ(p->ge_r, 0.30);
  EXPECT_DOUBLE_EQ(p->ge_loss_bad, 1.0);
  EXPECT_EQ(p->rate_bps, 100'000'000u);
  EXPECT_EQ(p->queue_packets, 200u);
  EXPECT_EQ(p->seed, 7u);
  EXPECT_EQ(p->Describe(),
            "rtt 70ms, jitter 1ms, loss 0.5%, burst loss 1%/30%/100%, rate 100mbit, queue 200");
}

TEST(LinkProfileTest, DefaultsDescribeOnlyTheRtt) {
  auto p = ParseLinkProfile({});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->rtt, 0);
  EXPECT_EQ(p->Describe(), "rtt 0ms");
  LinkProfile q;
  q.rtt = 148 * kMs;
  q.rate_bps = 1'000'000'000;
  EXPECT_EQ(q.Describe(), "rtt 148ms, rate 1gbit");
}

TEST(LinkProfileTest, RejectsBadValuesNamingTheField) {
  struct Case {
    LinkProfileText text;
    const char* field;
  };
  auto with = [](auto set) {
    LinkProfileText t;
    t.rtt = "10ms";
    set(t);
    return t;
  };
  const Case cases[] = {
      {with([](LinkProfileText& t) { t.rtt = "70"; }), "rtt"},
      {with([](LinkProfileText& t) { t.rtt = "11s"; }), "rtt"},
      {with([](LinkProfileText& t) { t.jitter = "6ms"; }), "jitter"},
      {with([](LinkProfileText& t) { t.loss = "100%"; }), "loss"},
      {with([](LinkProfileText& t) { t.loss = "abc"; }), "loss"},
      {with([](LinkProfileText& t) { t.burst_loss = "1%"; }), "burst-loss"},
      {with([](LinkProfileText& t) { t.burst_loss = "1%,0%"; }), "burst-loss"},
      {with([](LinkProfileText& t) { t.rate = "fast"; }), "rate"},
      {with([](LinkProfileText& t) { t.rate = "10bit"; }), "rate"},
      {with([](LinkProfileText& t) { t.queue = "0"; }), "queue"},
      {with([](LinkProfileText& t) { t.queue = "12x"; }), "queue"},
      {with([](LinkProfileText& t) { t.seed = "-1"; }), "seed"},
  };
  for (const Case& c : cases) {
    auto p = ParseLinkProfile(c.text);
    ASSERT_FALSE(p.ok()) << c.field;
    EXPECT_EQ(p.error().kind, ErrorKind::kUsage);
    EXPECT_NE(p.error().message.find(c.field), std::string::npos) << p.error().message;
  }
}

// The taps are read on a timer only while the shortest one-way delay leaves room for three
// intervals and the spin, with intervals from 0.5 ms to 1 ms; otherwise 0 (woken per packet).
TEST(TapPollIntervalTest, FollowsTheShortestOneWayDelay) {
  LinkProfile p;
  p.rtt = 10 * kMs;
  EXPECT_EQ(mover::TapPollInterval(p), 1 * kMs);
  p.rtt = 4 * kMs;
  EXPECT_EQ(mover::TapPollInterval(p), 1'900 * kUs / 3);
  p.jitter = 400 * kUs;  // shortest one-way 1.6 ms: 0.5 ms intervals still fit
  EXPECT_EQ(mover::TapPollInterval(p), 500 * kUs);
  p.jitter = 401 * kUs;
  EXPECT_EQ(mover::TapPollInterval(p), 0);
  p.rtt = 1 * kMs;
  p.jitter = 0;
  EXPECT_EQ(mover::TapPollInterval(p), 0);
}

TEST(LossModelTest, RandomLossMatchesItsProbability) {
  LinkProfile p;
  p.loss = 0.05;
  LossModel m(p, 42);
  const int n = 200'000;
  int lost = 0;
  for (int i = 0; i < n; ++i) lost += m.Lose() ? 1 : 0;
  // Binomial: sd = sqrt(n p (1-p)) ≈ 97; 5 sd is a deterministic-seed safety margin.
  EXPECT_NEAR(lost, n * 0.05, 500);
}

TEST(LossModelTest, GilbertElliottMatchesStationaryLossAndBurstLength) {
  LinkProfile p;
  p.ge_p = 0.01;
  p.ge_r = 0.25;
  p.ge_loss_bad = 1.0;
  LossModel m(p, 7);
  const int n = 400'000;
  int lost = 0, bursts = 0;
  bool prev = false;
  for (int i = 0; i < n; ++i) {
    bool l = m.Lose();
    lost += l ? 1 : 0;
    if (l && !prev) ++bursts;
    prev = l;
  }
  const double expected = p.ge_p / (p.ge_p + p.ge_r);  // 3.85 %
  EXPECT_NEAR(static_cast<double>(lost) / n, expected, 0.004);
  // With loss_bad = 1 a burst is one stay in the bad state: geometric, mean 1/r = 4 packets.
  EXPECT_NEAR(static_cast<double>(lost) / bursts, 1 / p.ge_r, 0.3);
}

TEST(LossModelTest, NoLossConfiguredLosesNothing) {
  LossModel m(LinkProfile{}, 1);
  for (int i = 0; i < 10'000; ++i) ASSERT_FALSE(m.Lose());
}

TEST(PacketSchedulerTest, DelaysByHalfTheRtt) {
  LinkProfile p;
  p.rtt = 70 * kMs;
  PacketScheduler s(p, 0);
  Nanos release = 0;
  ASSERT_EQ(s.Schedule(1000, 1500, &release), Verdict::kForward);
  EXPECT_EQ(release, 1000 + 35 * kMs);
}

TEST(PacketSchedulerTest, RateSerialisesBackToBackPackets) {
  LinkProfile p;
  p.rtt = 10 * kMs;
  p.rate_bps = 1'000'000'000;  // 1500 B = 12 µs
  PacketScheduler s(p, 0);
  Nanos r[3];
  for (Nanos& x : r) ASSERT_EQ(s.Schedule(0, 1500, &x), Verdict::kForward);
  EXPECT_EQ(r[0], 12'000 + 5 * kMs);
  EXPECT_EQ(r[1], 24'000 + 5 * kMs);
  EXPECT_EQ(r[2], 36'000 + 5 * kMs);
  // After the serialiser has gone idle, a packet starts at its own arrival.
  Nanos later = 0;
  ASSERT_EQ(s.Schedule(1 * kMs, 100, &later), Verdict::kForward);
  EXPECT_EQ(later, 1 * kMs + 800 + 5 * kMs);
}

TEST(PacketSchedulerTest, FullQueueTailDropsAndDrainsWithTime) {
  LinkProfile p;
  p.rate_bps = 8'000'000;  // 1000 B = 1 ms
  p.queue_packets = 5;
  PacketScheduler s(p, 0);
  Nanos release = 0;
  int forwarded = 0, dropped = 0;
  for (int i = 0; i < 20; ++i) {
    Verdict v = s.Schedule(0, 1000, &release);
    (v == Verdict::kForward ? forwarded : dropped)++;
    if (v != Verdict::kForward) {
      EXPECT_EQ(v, Verdict::kQueueFull);
    }
  }
  EXPECT_EQ(forwarded, 5);
  EXPECT_EQ(dropped, 15);
  EXPECT_EQ(release, 5 * kMs);  // the fifth of the accepted ones
  // 2.5 ms later two packets have left the serialiser: room for exactly two.
  EXPECT_EQ(s.Schedule(2'500'000, 1000, &release), Verdict::kForward);
  EXPECT_EQ(s.Schedule(2'500'000, 1000, &release), Verdict::kForward);
  EXPECT_EQ(s.Schedule(2'500'000, 1000, &release), Verdict::kQueueFull);
  EXPECT_EQ(release, 7 * kMs);
}

TEST(PacketSchedulerTest, JitterStaysInRangeAndNeverReorders) {
  LinkProfile p;
  p.rtt = 20 * kMs;
  p.jitter = 2 * kMs;
  PacketScheduler s(p, 3);
  Nanos prev = 0;
  bool saw_early = false, saw_late = false;
  for (int i = 0; i < 5000; ++i) {
    const Nanos now = i * 10'000;  // 10 µs apart, far closer than the jitter
    Nanos release = 0;
    ASSERT_EQ(s.Schedule(now, 100, &release), Verdict::kForward);
    ASSERT_GE(release, prev);
    ASSERT_LE(release, now + 12 * kMs);
    saw_late |= release > now + 11 * kMs;
    saw_early |= release < now + 9 * kMs;
    prev = release;
  }
  EXPECT_TRUE(saw_late);
  // The no-reordering rule lifts early packets to their predecessor's release; with packets
  // 10 µs apart almost none stay early, which is the documented price of keeping order.
  (void)saw_early;
}

TEST(PacketSchedulerTest, ReorderLetsJitterOvertake) {
  LinkProfile p;
  p.rtt = 20 * kMs;
  p.jitter = 2 * kMs;
  p.reorder = true;
  PacketScheduler s(p, 3);
  Nanos prev = 0;
  int overtaken = 0;
  for (int i = 0; i < 1000; ++i) {
    Nanos release = 0;
    ASSERT_EQ(s.Schedule(i * 10'000, 100, &release), Verdict::kForward);
    ASSERT_GE(release, i * 10'000 + 8 * kMs);
    overtaken += release < prev ? 1 : 0;
    prev = release;
  }
  EXPECT_GT(overtaken, 100);
}

TEST(PacketSchedulerTest, DirectionsHaveIndependentStreams) {
  LinkProfile p;
  p.loss = 0.5;
  PacketScheduler a(p, 0), b(p, 1);
  int differ = 0;
  Nanos r = 0;
  for (int i = 0; i < 200; ++i) differ += (a.Schedule(i, 100, &r) != b.Schedule(i, 100, &r));
  EXPECT_GT(differ, 50);
}

TEST(ErrorHistogramTest, PercentilesAndMax) {
  ErrorHistogram h;
  EXPECT_EQ(h.PercentileMicros(0.5), 0);
  for (int i = 1; i <= 100; ++i) h.Add(i * 1000);  // 1..100 µs
  h.Add(-5);                                       // early counts as 0
  EXPECT_EQ(h.count(), 101u);
  EXPECT_NEAR(h.PercentileMicros(0.5), 50, 0.2);
  EXPECT_NEAR(h.PercentileMicros(0.99), 99, 0.2);
  EXPECT_DOUBLE_EQ(h.MaxMicros(), 100);
  ErrorHistogram big;
  big.Add(5 * kMs + 3);
  big.Add(500 * kMs);
  h.Merge(big);
  EXPECT_DOUBLE_EQ(h.MaxMicros(), 500'000);
  EXPECT_EQ(h.count(), 103u);
}

TEST(NetnsNameTest, OwnerPidIsParsedOnlyFromOurNames) {
  EXPECT_EQ(OwnerPid("pqc-bench-1234-0-server"), 1234);
  EXPECT_EQ(OwnerPid(NetnsName("client")), getpid());
  EXPECT_EQ(OwnerPid("pqc-bench-x-0-server"), -1);
  EXPECT_EQ(OwnerPid("pqc-bench-12"), -1);
  EXPECT_EQ(OwnerPid("other-1234-0"), -1);
  EXPECT_EQ(OwnerPid("pqc-bench-0-1-client"), -1);
}

}  // namespace
}  // namespace pqc::link
