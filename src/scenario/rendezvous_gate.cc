#include "scenario/rendezvous_gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace pqc::scenario {
namespace {

// kMaxSources: addresses whose refusals are counted one by one (a flood from more is counted
// under one entry: the map must not grow with it).
constexpr size_t kMaxSources = 1024;
// kFullLogs: each address's first refusals logged in full (then at powers of two).
constexpr uint64_t kFullLogs = 4;
// kReplyTime: how long a reply to a joiner may wait for it to read (it has said a few bytes).
constexpr Nanos kReplyTime = 1'000'000'000;

// Differs: what of two identities differs, in words ("" when nothing).
std::string Differs(const PlanIdentity& a, const PlanIdentity& b) {
  if (a.version != b.version) {
    return fmt::format("another pqc-bench build ({} vs {})", a.version, b.version);
  }
  if (a.scenario != b.scenario) return "another scenario text";
  if (a.options != b.options) return "other run options (--set, --only, --trials or --full)";
  if (a.plan != b.plan) return "another plan (arms or trial order)";
  return "";
}

std::string Seconds(Nanos n) {
  return fmt::format("{:g} s", static_cast<double>(n) / 1e9);
}

}  // namespace

JoinGate::JoinGate(const ShardSpec& spec, const PlanIdentity& identity, const RendezvousKey* key,
                   std::FILE* log, GateLimits limits)
    : spec_(spec),
      identity_(identity),
      key_(key),
      log_(log),
      limits_(limits),
      joined_(spec.count, false) {
  joined_[0] = true;
}

void JoinGate::Log(std::string_view line) {
  fmt::print(log_, "shard 0/{}: {}\n", spec_.count, line);
  std::fflush(log_);
}

void JoinGate::Refuse(Joiner& j, MessageKind kind, std::string_view why) {
  const std::string text = Printable(why, kMaxLine / 2);
  ++refused_;
  std::string source = j.source;
  if (!refusals_.contains(source) && refusals_.size() >= kMaxSources) source = "(others)";
  const uint64_t n = ++refusals_[source];
  if (n <= kFullLogs || std::has_single_bit(n)) {
    Log(fmt::format("refused a connection from {}: {}{}", j.from, text,
                    n > kFullLogs ? fmt::format(" ({} refused from {} so far)", n, j.source) : ""));
  }
  (void)j.channel.Send({.kind = kind, .text = text}, {}, kReplyTime);
  j.done = true;
}

void JoinGate::Add(ScopedFd fd, const SocketAddress& from) {
  Joiner j{.channel = Channel(std::move(fd), /*max_payload=*/0),
           .source = SourceOf(from),
           .from = from.ToString(),
           .accepted = MonotonicNow(),
           .step = key_ != nullptr ? Step::kNonce : Step::kHello};
  std::map<std::string_view, size_t> unproven;  // per source
  size_t total = 0;
  for (const Joiner& o : joiners_) {
    if (o.proven || o.done) continue;
    ++unproven[o.source];
    ++total;
  }
  const size_t mine = unproven[j.source];
  if (mine >= limits_.max_per_source) {
    Refuse(j, MessageKind::kBusy,
           fmt::format("{} connections from {} are joining already", mine, j.source));
    return;
  }
  if (total >= limits_.max_unproven) {
    // The gate is full: a newcomer takes the slot of the oldest connection of the address
    // holding the most, if that is more than the newcomer's would then hold (many addresses
    // share the gate fairly; a flood from few cannot crowd out a shard from another).
    const auto most =
        std::max_element(unproven.begin(), unproven.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (most->second <= mine + 1) {
      Refuse(j, MessageKind::kBusy,
             fmt::format("{} connections from {} addresses are joining already", total,
                         unproven.size()));
      return;
    }
    const std::string crowded(most->first);
    auto oldest = std::find_if(joiners_.begin(), joiners_.end(), [&](const Joiner& o) {
      return !o.proven && !o.done && o.source == crowded;
    });
    Refuse(*oldest, MessageKind::kBusy,
           fmt::format("displaced: {} connections from {} were joining, more than from any "
                       "other address",
                       most->second, crowded));
    std::erase_if(joiners_, [](const Joiner& o) { return o.done; });
  }
  joiners_.push_back(std::move(j));
}

void JoinGate::Watch(std::vector<pollfd>& fds, Nanos& wake) const {
  for (const Joiner& j : joiners_) {
    fds.push_back({j.channel.fd(), POLLIN, 0});
    wake = std::min(wake, j.accepted + (j.proven ? limits_.join_time : limits_.prove_time));
  }
}

Status JoinGate::Serve() {
  for (Joiner& j : joiners_) {
    std::string why;
    for (int n = 0; n < limits_.messages_per_wake && why.empty() && !j.done; ++n) {
      auto m = j.channel.TryReceive();
      if (!m) {
        why = m.error().message;
        break;
      }
      if (!*m) break;
      auto outcome = Admit(j, **m, why);
      if (!outcome) return outcome.error();
      if (*outcome == Outcome::kJoined) {
        joined_[j.who] = true;
        Log(fmt::format("shard {} joined from {}", j.who, j.from));
        ready_.push_back({j.who, std::move(j.channel)});
        j.done = true;
      }
    }
    if (j.done) continue;
    const Nanos age = MonotonicNow() - j.accepted;
    if (why.empty() && !j.proven && age >= limits_.prove_time) {
      why = fmt::format(
          "it did not prove itself within {} ({}: a real shard needs a few round "
          "trips)",
          Seconds(limits_.prove_time),
          key_ != nullptr ? "a NONCE, then a HELLO tagged with the key" : "a HELLO");
    } else if (why.empty() && age >= limits_.join_time) {
      why = fmt::format("it did not finish joining within {}", Seconds(limits_.join_time));
    }
    if (!why.empty()) Refuse(j, MessageKind::kRefuse, why);
  }
  std::erase_if(joiners_, [](const Joiner& j) { return j.done; });
  return {};
}

std::vector<JoinGate::Joined> JoinGate::TakeJoined() {
  std::vector<Joined> out = std::move(ready_);
  ready_.clear();
  return out;
}

std::string JoinGate::Summary() const {
  if (refused_ == 0) return "";
  return fmt::format("refused {} connection(s) from {} address(es)", refused_, refusals_.size());
}

// Admit: one message of a joiner's handshake. A joiner that breaks the protocol or fails to
// prove the key is dropped (kDrop, `why` says why); a shard that proved itself (or, without a
// key, said who it is) and would run something else ends the study (the error).
Result<JoinGate::Outcome> JoinGate::Admit(Joiner& j, const Message& m, std::string& why) {
  switch (j.step) {
    case Step::kNonce: {
      if (m.kind != MessageKind::kNonce) {
        why =
            "it did not open with a NONCE: this shard 0 requires the rendezvous key (start "
            "every shard with the same --rendezvous-key FILE)";
        return Outcome::kDrop;
      }
      auto nonce = NewNonce();
      if (!nonce) return nonce.error();
      auto session = SessionKey(*key_, *nonce, m.nonce);
      if (!session) return session.error();
      if (Status st =
              j.channel.Send({.kind = MessageKind::kNonce, .nonce = *nonce}, {}, kReplyTime);
          !st) {
        why = st.error().message;
        return Outcome::kDrop;
      }
      j.channel.Authenticate(std::move(*session), Direction::kFromLeader);
      j.step = Step::kHello;
      return Outcome::kGoOn;
    }
    case Step::kHello: {
      if (m.kind == MessageKind::kNonce) {
        why =
            "it sent a NONCE: it has a --rendezvous-key, this shard 0 has none (give every "
            "shard the same key, or none)";
        return Outcome::kDrop;
      }
      if (m.kind != MessageKind::kHello) {
        why = "it spoke before saying who it is";
        return Outcome::kDrop;
      }
      // With a key the line was read only if its tag proved the key; without one, loopback
      // only, a HELLO is all a shard can say.
      j.proven = true;
      const uint32_t who = m.shard.index;
      std::string refuse;
      if (m.shard.count != spec_.count) {
        refuse = fmt::format("shard {} was started as one of {} shards, shard 0 as one of {}", who,
                             m.shard.count, spec_.count);
      } else if (who == 0 || who >= spec_.count || joined_[who]) {
        refuse = fmt::format(
            "shard {} of {} has joined already or cannot exist (give each shard its own index)",
            who, spec_.count);
      } else if (std::string d = Differs(identity_, m.identity); !d.empty()) {
        refuse = fmt::format(
            "shard {} would run {} than shard 0: every shard needs the same scenario, flags and "
            "pqc-bench",
            who, d);
      }
      if (!refuse.empty()) {
        refuse = Printable(refuse, kMaxLine / 2);
        (void)j.channel.Send({.kind = MessageKind::kRefuse, .text = refuse}, {}, kReplyTime);
        return MakeError(ErrorKind::kConfig, "rendezvous: " + refuse);
      }
      if (Status st = j.channel.Send({.kind = MessageKind::kWelcome}, {}, kReplyTime); !st) {
        why = st.error().message;
        return Outcome::kDrop;
      }
      j.who = who;
      j.step = Step::kClock;
      return Outcome::kGoOn;
    }
    case Step::kClock:
      // The joiner's clock rounds, answered at once: the leader's time as late as possible.
      if (m.kind == MessageKind::kReady) {
        if (joined_[j.who]) {  // another connection claimed the index meanwhile
          why = fmt::format("shard {} has joined already", j.who);
          return Outcome::kDrop;
        }
        return Outcome::kJoined;
      }
      if (m.kind != MessageKind::kPing) {
        why = "expected PING or READY";
        return Outcome::kDrop;
      }
      if (++j.pings > limits_.max_pings) {
        why = fmt::format("more than {} PINGs (a shard sends 8)", limits_.max_pings);
        return Outcome::kDrop;
      }
      if (Status st = j.channel.Send({.kind = MessageKind::kPong, .t0 = m.t0, .t1 = UnixNowNs()},
                                     {}, kReplyTime);
          !st) {
        why = st.error().message;
        return Outcome::kDrop;
      }
      return Outcome::kGoOn;
  }
  return Outcome::kDrop;
}

}  // namespace pqc::scenario
