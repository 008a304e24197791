// The trial barriers (issue 28): the solo walk of the plan on its own; shard 0's and a
// follower's barriers over real loopback TCP (rendezvous_harness.h), driven as the runner
// drives them — the announced start, a follower's DONE for a trial it measured, could not run
// or abandoned, an arm shard 0 cannot run (SKIP, answered by no one), a lost follower stopping
// the study, a plan that differs, the end. Seconds, no root.
#include "scenario/trial_barrier.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "rendezvous_harness.h"

namespace pqc::scenario {
namespace {

using namespace rendezvous_harness;  // NOLINT(google-build-using-namespace)

// PlanOf: `arms` arms, `blocks` blocks, in arm order within each block.
Plan PlanOf(uint32_t arms, uint32_t blocks) {
  Plan p;
  for (uint32_t a = 1; a <= arms; ++a)
    p.arms.push_back({.id = a, .label = fmt::format("arm {}", a)});
  for (uint32_t b = 0; b < blocks; ++b) {
    for (uint32_t a = 1; a <= arms; ++a) {
      p.trials.push_back({.arm = a, .block = b, .seq = static_cast<uint32_t>(p.trials.size())});
    }
  }
  return p;
}

// Seqs: what a barrier hands out until the end, measuring each trial (valid).
std::vector<uint32_t> Seqs(TrialBarrier& b, const std::set<uint32_t>& failed_arms,
                           std::vector<uint64_t>* positions = nullptr) {
  std::vector<uint32_t> out;
  for (int guard = 0; guard < 100; ++guard) {
    auto next = b.Next(failed_arms);
    EXPECT_TRUE(next.ok());
    if (!next.ok() || next->trial == nullptr) break;
    out.push_back(next->trial->seq);
    if (positions) positions->push_back(next->position);
    EXPECT_TRUE(b.Measured(next->trial->seq, true).ok());
  }
  return out;
}

TEST(TrialBarrier, SoloWalksThePlanPastStoredTrialsAndFailedArms) {
  const Plan plan = PlanOf(3, 2);  // seq 0..5: arms 1 2 3 1 2 3
  auto solo = SoloBarrier(plan, {0, 4});
  EXPECT_FALSE(solo->serves_others());
  std::vector<uint64_t> positions;
  EXPECT_EQ(Seqs(*solo, {3}, &positions), (std::vector<uint32_t>{1, 3}));
  // Two trials were stored before: the first new one is the third of the run.
  EXPECT_EQ(positions, (std::vector<uint64_t>{3, 4}));
  auto fresh = SoloBarrier(plan, {});
  auto next = fresh->Next({});
  ASSERT_TRUE(next.ok());
  auto start = fresh->Started(next->trial->seq, 4433, "", {});
  ASSERT_TRUE(start.ok());
  EXPECT_EQ(*start, 0);  // now: no one else to wait for
  const Others others = fresh->Loaded(next->trial->seq, MonotonicNow());
  EXPECT_TRUE(others.invalid.empty());
  EXPECT_TRUE(others.lost.empty());
  EXPECT_TRUE(fresh->lost().empty());
}

// Shard 0 and shard 1 of two, joined on loopback, each wrapped in its barrier.
struct TwoShards {
  explicit TwoShards(const Plan& leader_plan, const Plan& follower_plan)
      : port(FreePort()), thread(port, 2, nullptr) {
    auto f = Join(port, 1, 2, nullptr);
    EXPECT_TRUE(f.ok()) << f.error().message;
    auto& l = thread.result();
    EXPECT_TRUE(l.ok()) << l.error().message;
    if (!f.ok() || !l.ok()) return;
    leader = LeaderBarrier(leader_plan, std::move(*l));
    follower = FollowerBarrier(follower_plan, std::move(*f), log.f);
  }
  uint16_t port;
  LeaderThread thread;
  Log log;
  std::unique_ptr<TrialBarrier> leader;
  std::unique_ptr<TrialBarrier> follower;
};

TEST(TrialBarrier, ShardZeroAnnouncesAndWaitsForEveryDone) {
  const Plan plan = PlanOf(2, 2);
  TwoShards s(plan, plan);
  ASSERT_TRUE(s.leader && s.follower);
  EXPECT_TRUE(s.leader->serves_others());

  // Trial 0: both measure it, the follower's invalid.
  auto lead = s.leader->Next({});
  ASSERT_TRUE(lead.ok() && lead->trial != nullptr);
  EXPECT_EQ(lead->trial->seq, 0u);
  const int64_t before = UnixNowNs();
  auto start_at = s.leader->Started(0, 4433, "ROOTS", {});
  ASSERT_TRUE(start_at.ok()) << start_at.error().message;
  EXPECT_GT(*start_at, before);  // in the future: every shard reads it first
  auto follow = s.follower->Next({});
  ASSERT_TRUE(follow.ok()) << follow.error().message;
  ASSERT_NE(follow->trial, nullptr);
  ASSERT_TRUE(follow->announced.has_value());
  EXPECT_EQ(follow->trial->seq, 0u);
  EXPECT_EQ(follow->position, 1u);
  EXPECT_EQ(follow->announced->roots_pem, "ROOTS");
  EXPECT_EQ(follow->announced->target.port(), 4433);
  // One clock here: the follower's start instant is shard 0's, within the offset's error.
  EXPECT_LT(std::llabs(follow->announced->start_at - *start_at), 100'000'000);
  ASSERT_TRUE(s.follower->Measured(0, false).ok());
  Others others = s.leader->Loaded(0, MonotonicNow() + 5 * kSecond);
  EXPECT_EQ(others.invalid, std::vector<uint32_t>{1});
  EXPECT_TRUE(others.lost.empty());

  // Trial 1: the follower cannot run it (its load failed): it still answers DONE.
  ASSERT_TRUE(s.leader->Measured(0, true).ok());
  lead = s.leader->Next({});
  ASSERT_TRUE(lead.ok() && lead->trial != nullptr);
  EXPECT_EQ(lead->position, 2u);
  ASSERT_TRUE(s.leader->Started(1, 4433, "", {}).ok());
  follow = s.follower->Next({});
  ASSERT_TRUE(follow.ok() && follow->trial != nullptr);
  ASSERT_TRUE(s.follower->Failed(*follow, "connection refused").ok());
  others = s.leader->Loaded(1, MonotonicNow() + 5 * kSecond);
  EXPECT_EQ(others.invalid, std::vector<uint32_t>{1});
  EXPECT_TRUE(others.lost.empty());

  // Trial 2: shard 0 cannot run its arm: SKIP, which no one answers (an answer would be a
  // stray DONE in trial 3's wait).
  lead = s.leader->Next({});
  ASSERT_TRUE(lead.ok() && lead->trial != nullptr);
  EXPECT_EQ(lead->trial->seq, 2u);
  ASSERT_TRUE(s.leader->Failed(*lead, "probe slh-dsa: TLS fails").ok());
  follow = s.follower->Next({});
  ASSERT_TRUE(follow.ok() && follow->trial != nullptr);
  ASSERT_TRUE(follow->announced && follow->announced->skip);
  EXPECT_EQ(follow->announced->text, "probe slh-dsa: TLS fails");
  ASSERT_TRUE(s.follower->Failed(*follow, follow->announced->text).ok());

  // Trial 3 (arm 2; arm 1 failed): measured on both, valid.
  lead = s.leader->Next({1});
  ASSERT_TRUE(lead.ok() && lead->trial != nullptr);
  EXPECT_EQ(lead->trial->seq, 3u);
  ASSERT_TRUE(s.leader->Started(3, 4433, "", {}).ok());
  follow = s.follower->Next({});
  ASSERT_TRUE(follow.ok() && follow->trial != nullptr);
  EXPECT_EQ(follow->trial->seq, 3u);
  ASSERT_TRUE(s.follower->Measured(3, true).ok());
  others = s.leader->Loaded(3, MonotonicNow() + 5 * kSecond);
  EXPECT_TRUE(others.invalid.empty());
  EXPECT_TRUE(others.lost.empty());

  // The end: the follower's loop ends too, not stopped.
  lead = s.leader->Next({1});
  ASSERT_TRUE(lead.ok());
  EXPECT_EQ(lead->trial, nullptr);
  s.leader->Finish();
  follow = s.follower->Next({});
  ASSERT_TRUE(follow.ok()) << follow.error().message;
  EXPECT_EQ(follow->trial, nullptr);
  EXPECT_TRUE(follow->stopped.empty());
}

// A follower that stops before measuring (Ctrl-C, no room) answers DONE, invalid, so shard 0
// is not kept waiting for the trial's whole time.
TEST(TrialBarrier, AnAbandonedTrialIsAnsweredAtOnce) {
  const Plan plan = PlanOf(1, 1);
  TwoShards s(plan, plan);
  ASSERT_TRUE(s.leader && s.follower);
  ASSERT_TRUE(s.leader->Next({}).ok());
  ASSERT_TRUE(s.leader->Started(0, 4433, "", {}).ok());
  auto follow = s.follower->Next({});
  ASSERT_TRUE(follow.ok() && follow->trial != nullptr);
  ASSERT_TRUE(s.follower->Abandon(*follow).ok());
  const Nanos before = MonotonicNow();
  const Others others = s.leader->Loaded(0, MonotonicNow() + 30 * kSecond);
  EXPECT_LT(MonotonicNow() - before, 10 * kSecond);
  EXPECT_EQ(others.invalid, std::vector<uint32_t>{1});
  EXPECT_TRUE(others.lost.empty());
}

// A follower that goes away is lost: shard 0's trial says so, its loop is told to end, and
// the shards still there hear STOP with the reason.
TEST(TrialBarrier, ALostFollowerStopsTheStudy) {
  const Plan plan = PlanOf(1, 3);
  const uint16_t port = FreePort();
  LeaderThread thread(port, 3, nullptr);
  auto one = Join(port, 1, 3, nullptr);
  auto two = Join(port, 2, 3, nullptr);
  ASSERT_TRUE(one.ok() && two.ok());
  auto& l = thread.result();
  ASSERT_TRUE(l.ok()) << l.error().message;
  Log log;
  auto leader = LeaderBarrier(plan, std::move(*l));
  auto stays = FollowerBarrier(plan, std::move(*two), log.f);
  { auto gone = FollowerBarrier(plan, std::move(*one), log.f); }  // shard 1 exits
  ASSERT_TRUE(leader->Next({}).ok());
  ASSERT_TRUE(leader->Started(0, 4433, "", {}).ok());
  auto follow = stays->Next({});
  ASSERT_TRUE(follow.ok() && follow->trial != nullptr);
  ASSERT_TRUE(stays->Measured(0, true).ok());
  const Others others = leader->Loaded(0, MonotonicNow() + 5 * kSecond);
  ASSERT_FALSE(others.lost.empty());
  EXPECT_NE(others.lost.find("shard 1"), std::string::npos) << others.lost;
  EXPECT_NE(others.lost.find("in trial 1"), std::string::npos) << others.lost;
  EXPECT_EQ(leader->lost(), others.lost);
  leader->Finish();
  follow = stays->Next({});
  ASSERT_TRUE(follow.ok()) << follow.error().message;
  EXPECT_EQ(follow->trial, nullptr);
  EXPECT_EQ(follow->stopped, "shard 0 stopped the study: " + others.lost);
  EXPECT_NE(log.text().find(follow->stopped), std::string::npos);
}

// A follower whose plan has fewer trials than shard 0's announcement refuses it by name.
TEST(TrialBarrier, AnAnnouncedTrialOutsideThePlanIsAnError) {
  const Plan longer = PlanOf(2, 2);
  const Plan shorter = PlanOf(2, 1);  // the barriers keep a reference: both outlive them
  TwoShards s(longer, shorter);
  ASSERT_TRUE(s.leader && s.follower);
  ASSERT_TRUE(s.leader->Started(3, 4433, "", {}).ok());
  auto follow = s.follower->Next({});
  ASSERT_FALSE(follow.ok());
  EXPECT_NE(follow.error().message.find("announced trial 3"), std::string::npos)
      << follow.error().message;
  EXPECT_NE(follow.error().message.find("plans differ"), std::string::npos);
}

}  // namespace
}  // namespace pqc::scenario
