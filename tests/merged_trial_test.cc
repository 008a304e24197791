// merged_trial_test — merge's arithmetic on hand-made shard trials (no files, no root, no
// clock): the union's statistics, the clock shift between shards of different machines, and
// every reason a merged trial is invalid.
#include "scenario/merged_trial.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pqc::scenario {
namespace {

constexpr int64_t kMs = 1'000'000;

// A trial of `handshakes_us.size()` measured fresh connections, one request each, starting
// 100 ms apart from `start` on the shard's own monotonic clock.
struct Made {
  results::TrialRecord trial;
  results::TrialRecords records;
};
Made MakeTrial(int64_t start, int64_t wall_minus_mono, const std::vector<int64_t>& handshakes_us) {
  Made m;
  for (size_t i = 0; i < handshakes_us.size(); ++i) {
    ConnectionRecord c;
    c.id = i;
    c.measured = true;
    c.intended_start = c.actual_start = start + static_cast<int64_t>(i) * 100 * kMs;
    c.tcp_established = c.actual_start + 50'000;
    c.tls_done = c.tcp_established + handshakes_us[i] * 1000;
    c.closed = c.tls_done + 2 * kMs;
    c.group = "X25519MLKEM768";
    c.first_request = static_cast<uint32_t>(m.records.load.requests.size());
    c.request_count = 1;
    m.records.load.requests.push_back({.sent = c.tls_done + 10'000,
                                       .first_byte = c.tls_done + 500'000,
                                       .last_byte = c.tls_done + 600'000,
                                       .status = 200,
                                       .body_bytes = 3});
    m.records.load.connections.push_back(c);
  }
  results::TrialRecord& t = m.trial;
  t.arm = 1;
  t.seq = 4;
  t.started = "2026-12-03T10:00:00Z";
  t.ended = "2026-12-03T10:00:10Z";
  t.valid = true;
  t.mono_anchor_ns = start;
  t.wall_anchor_ns = start + wall_minus_mono;
  t.measure_start_ns = start;
  t.measure_end_ns = start + 1000 * kMs;
  t.summary.loadgen = {.wall_s = 1.0,
                       .threads = 1,
                       .cpu_user_s = 0.25,
                       .cpu_sys_s = 0.05,
                       .cpu_share = 0.3,
                       .skipped = 2,
                       .unfinished = 1};
  t.client_cpu_s = 0.3;
  return m;
}

ShardTrial Shard(uint32_t index, const std::string& boot, int64_t offset, Made& made) {
  return {.shard = index,
          .host = "host" + std::to_string(index),
          .source = "shard" + std::to_string(index),
          .boot_id = boot,
          .offset_ns = offset,
          .trial = &made.trial,
          .records = std::move(made.records)};
}

TEST(MergedTrial, TheUnionIsSummarisedAndTheAccountingAddedUp) {
  Made a = MakeTrial(1'000 * kMs, 0, {1000, 3000});
  Made b = MakeTrial(1'000 * kMs, 0, {2000, 4000, 5000});
  b.trial.ended = "2026-12-03T10:00:11Z";
  std::vector<ShardTrial> shards;
  shards.push_back(Shard(0, "boot", 0, a));
  shards.push_back(Shard(1, "boot", 0, b));
  const MergedTrial m = CombineTrial(std::move(shards), {}, 10 * kMs, LoadOptions{});
  ASSERT_EQ(m.load.connections.size(), 5u);
  EXPECT_EQ(m.connections, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(m.requests, (std::vector<uint64_t>{2, 3}));
  // Shard 1's connections point at their own requests, after shard 0's.
  EXPECT_EQ(m.load.connections[2].first_request, 2u);
  EXPECT_EQ(m.load.requests[m.load.connections[4].first_request].sent,
            m.load.connections[4].tls_done + 10'000);
  // The percentiles are the union's, not a mean of the shards': median of 1,2,3,4,5 ms.
  EXPECT_EQ(m.row.summary.phase(Phase::kHandshake).count, 5u);
  EXPECT_DOUBLE_EQ(m.row.summary.phase(Phase::kHandshake).p50, 3000.0);
  // The load generators' own accounting: CPU and threads add, the wall is the longest.
  EXPECT_DOUBLE_EQ(m.load.cpu_user_s, 0.5);
  EXPECT_DOUBLE_EQ(m.row.client_cpu_s, 0.6);
  EXPECT_EQ(m.load.threads, 2u);
  EXPECT_EQ(m.load.skipped, 4u);
  EXPECT_EQ(m.load.unfinished, 2u);
  EXPECT_EQ(m.row.ended, "2026-12-03T10:00:11Z") << "the last shard's end";
  EXPECT_EQ(m.row.seq, 4u);
  ASSERT_EQ(m.row.shards.size(), 2u);
  EXPECT_EQ(m.row.shards[1].host, "host1");
  EXPECT_EQ(m.row.shards[1].connections, 3u);
  EXPECT_EQ(m.row.shards[1].timestamp_shift_ns, 0) << "one boot, one clock";
  for (const std::string& r : m.row.reasons) {
    EXPECT_EQ(r.find("shard"), std::string::npos) << "no shard reason expected: " << r;
  }
}

TEST(MergedTrial, AnotherMachinesTimestampsArePutOnShardZerosClock) {
  // Shard 1's monotonic clock reads 5 s less than shard 0's for the same wall instant, and
  // its wall clock is 2 ms behind shard 0's (the rendezvous measured it: offset +2 ms).
  const int64_t wall0 = 1'700'000'000'000 * kMs;
  Made a = MakeTrial(10'000 * kMs, wall0 - 10'000 * kMs, {1000});
  Made b = MakeTrial(5'000 * kMs, wall0 - 5'000 * kMs - 2 * kMs, {1000});
  const int64_t intended = b.records.load.connections[0].intended_start;
  std::vector<ShardTrial> shards;
  shards.push_back(Shard(0, "boot-a", 0, a));
  shards.push_back(Shard(1, "boot-b", 2 * kMs, b));
  const MergedTrial m = CombineTrial(std::move(shards), {}, 10 * kMs, LoadOptions{});
  // (wall − mono of shard 1) + offset − (wall − mono of shard 0) = 5 s.
  const int64_t shift = 5'000 * kMs;
  EXPECT_EQ(m.row.shards[1].timestamp_shift_ns, shift);
  EXPECT_EQ(m.load.connections[1].intended_start, intended + shift);
  EXPECT_EQ(m.load.connections[1].intended_start, m.load.connections[0].intended_start)
      << "both shards started their first connection at the same instant";
  EXPECT_EQ(m.row.shards[1].start_skew_ns, 0);
  EXPECT_EQ(m.row.shards[1].clock_offset_ns, 2 * kMs);
  // A timestamp that never happened stays 0, wherever the clock is.
  ShardTrial lead{.boot_id = "x", .trial = &a.trial};
  ShardTrial same{.boot_id = "x", .offset_ns = 7, .trial = &b.trial};
  EXPECT_EQ(ShiftNs(same, lead), 0);
  same.boot_id = "";
  lead.boot_id = "";
  EXPECT_EQ(ShiftNs(same, lead), shift + 7 - 2 * kMs) << "unknown boots: through the clocks";
}

TEST(MergedTrial, EveryReasonToDistrustAMergedTrialIsNamed) {
  Made a = MakeTrial(1'000 * kMs, 0, {1000, 2000});
  Made b = MakeTrial(1'000 * kMs, 0, {1000, 2000});
  b.trial.measure_start_ns += 25 * kMs;  // began its measured phase late
  b.trial.valid = false;
  b.trial.reasons = {"load generator saturated: lag p99 2000.0 µs > 1000 µs"};
  a.trial.valid = false;
  // (assign, not a braced list: gcc 12 at -O2 misreads the list's temporary, -Warray-bounds)
  a.trial.reasons.assign(1, "shard(s) 1 " + std::string(kFollowersInvalid));
  std::vector<ShardTrial> shards;
  shards.push_back(Shard(0, "boot", 0, a));
  shards.push_back(Shard(1, "boot", 0, b));
  const MergedTrial m = CombineTrial(std::move(shards), {2}, 10 * kMs, LoadOptions{});
  EXPECT_FALSE(m.row.valid);
  const std::vector<std::string>& r = m.row.reasons;
  auto has = [&](const std::string& text) {
    return std::find_if(r.begin(), r.end(), [&](const std::string& x) {
             return x.find(text) != std::string::npos;
           }) != r.end();
  };
  EXPECT_TRUE(has("shard 2 stored no record of this trial")) << ::testing::PrintToString(r);
  EXPECT_TRUE(has("shard 1 began its measured phase +25.0 ms from shard 0's (limit ±10.0 ms)"))
      << ::testing::PrintToString(r);
  EXPECT_TRUE(has("shard 1: load generator saturated")) << ::testing::PrintToString(r);
  EXPECT_FALSE(has(std::string(kFollowersInvalid)))
      << "shard 0's note repeats the others' reasons: " << ::testing::PrintToString(r);
  EXPECT_EQ(m.row.shards[1].start_skew_ns, 25 * kMs);
  EXPECT_FALSE(m.row.shards[1].valid);
  EXPECT_EQ(m.load.connections.size(), 4u) << "every stored connection is kept";
}

}  // namespace
}  // namespace pqc::scenario
