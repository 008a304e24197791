#include "scenario/trial_barrier.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

namespace pqc::scenario {
namespace {

// PlanWalk: the plan's trials in order, past the stored ones and the failed arms' (what the
// solo run and shard 0 both measure).
class PlanWalk {
 public:
  PlanWalk(const Plan& plan, std::set<uint32_t> done) : plan_(plan), done_(std::move(done)) {
    stored_ = done_.size();
  }
  NextTrial Next(const std::set<uint32_t>& failed_arms) {
    while (at_ < plan_.trials.size()) {
      const PlannedTrial& t = plan_.trials[at_++];
      if (done_.count(t.seq) > 0 || failed_arms.count(plan_.arms[t.arm - 1].id) > 0) continue;
      return {.trial = &t, .position = stored_ + 1};
    }
    return {};
  }
  void Measured() { ++stored_; }

 private:
  const Plan& plan_;
  std::set<uint32_t> done_;
  size_t at_ = 0;
  uint64_t stored_ = 0;
};

class Solo final : public TrialBarrier {
 public:
  Solo(const Plan& plan, std::set<uint32_t> done) : walk_(plan, std::move(done)) {}
  Result<NextTrial> Next(const std::set<uint32_t>& failed_arms) override {
    return walk_.Next(failed_arms);
  }
  Status Measured(uint64_t /*seq*/, bool /*valid*/) override {
    walk_.Measured();
    return {};
  }

 private:
  PlanWalk walk_;
};

class Lead final : public TrialBarrier {
 public:
  Lead(const Plan& plan, Leader leader) : walk_(plan, {}), leader_(std::move(leader)) {}
  Result<NextTrial> Next(const std::set<uint32_t>& failed_arms) override {
    return walk_.Next(failed_arms);
  }
  bool serves_others() const override { return true; }
  Result<int64_t> Started(uint64_t seq, uint16_t port, std::string_view roots_pem,
                          const std::vector<std::string>& netns) override {
    // Announce → start: every shard has read the announcement by then.
    constexpr Nanos kStartMargin = 300'000'000;
    const int64_t start_at = UnixNowNs() + kStartMargin;
    if (Status st = leader_.Announce(seq, start_at, port, roots_pem, netns); !st) {
      return st.error();
    }
    return start_at;
  }
  Others Loaded(uint64_t seq, Nanos deadline) override {
    Leader::Finished f = leader_.WaitDone(seq, deadline);
    Others out{.invalid = std::move(f.invalid)};
    // A lost shard (killed, stalled past the trial's time, its host gone): the others alone
    // would load every later trial with less than the plan, so the study stops after this
    // one, which is kept, invalid, with what every remaining shard measured.
    std::vector<std::string> lost;
    for (const auto& [shard, why] : f.lost)
      lost.push_back(fmt::format("shard {} ({})", shard, why));
    if (!lost.empty()) {
      lost_ = fmt::format(
          "lost {} in trial {}: without it the other shards would load the target with less "
          "than the plan",
          fmt::join(lost, ", "), seq + 1);
      out.lost = lost_;
    }
    return out;
  }
  const std::string& lost() const override { return lost_; }
  Status Failed(const NextTrial& next, std::string_view why) override {
    return leader_.Skip(next.trial->seq, why);
  }
  Status Measured(uint64_t /*seq*/, bool /*valid*/) override {
    walk_.Measured();
    return {};
  }
  void Finish() override {
    if (lost_.empty()) {
      leader_.End();
    } else {
      leader_.Stop(lost_);
    }
  }

 private:
  PlanWalk walk_;
  Leader leader_;
  std::string lost_;
};

class Follow final : public TrialBarrier {
 public:
  Follow(const Plan& plan, Follower follower, std::FILE* log)
      : plan_(plan), follower_(std::move(follower)), log_(log) {
    for (const Arm& a : plan_.arms) wait_ = std::max(wait_, TrialWait(a.settings));
  }
  Result<NextTrial> Next(const std::set<uint32_t>& /*failed_arms*/) override {
    auto start = follower_.Next(MonotonicNow() + wait_);
    if (!start) return start.error();
    if (start->end) return NextTrial{};
    if (start->stop) {
      NextTrial out{.stopped = "shard 0 stopped the study: " + start->text};
      fmt::print(log_, "{}\n", out.stopped);
      return out;
    }
    if (start->seq >= plan_.trials.size() || plan_.trials[start->seq].seq != start->seq) {
      return MakeError(ErrorKind::kConfig,
                       fmt::format("shard 0 announced trial {}, which this shard's plan of {} "
                                   "trials does not have: the shards' plans differ",
                                   start->seq, plan_.trials.size()));
    }
    const PlannedTrial& t = plan_.trials[start->seq];
    return NextTrial{.trial = &t, .position = t.seq + 1, .announced = std::move(*start)};
  }
  Status Failed(const NextTrial& next, std::string_view /*why*/) override {
    // A SKIP needs no answer: shard 0 waits for no one on it.
    if (next.announced && next.announced->skip) return {};
    return follower_.Done(next.trial->seq, false);
  }
  Status Abandon(const NextTrial& next) override { return Failed(next, ""); }
  Status Measured(uint64_t seq, bool valid) override { return follower_.Done(seq, valid); }

 private:
  const Plan& plan_;
  Follower follower_;
  std::FILE* log_;
  Nanos wait_ = 0;
};

}  // namespace

Nanos TrialWait(const ArmSettings& s) {
  return s.warmup + s.duration + 2 * s.timeout + 600'000'000'000;
}

std::unique_ptr<TrialBarrier> SoloBarrier(const Plan& plan, std::set<uint32_t> done) {
  return std::make_unique<Solo>(plan, std::move(done));
}

std::unique_ptr<TrialBarrier> LeaderBarrier(const Plan& plan, Leader leader) {
  return std::make_unique<Lead>(plan, std::move(leader));
}

std::unique_ptr<TrialBarrier> FollowerBarrier(const Plan& plan, Follower follower, std::FILE* log) {
  return std::make_unique<Follow>(plan, std::move(follower), log);
}

}  // namespace pqc::scenario
