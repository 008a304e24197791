// rendezvous_leader — shard 0's side of the rendezvous (rendezvous.h): the joiners admitted
// one handshake step at a time, then per trial the announcement, the wait for every DONE,
// SKIP, END and STOP.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/socket.h"
#include "scenario/rendezvous.h"

namespace pqc::scenario {
namespace {

// OneLine: a reason as the rest of one message line (SKIP, STOP).
std::string OneLine(std::string_view reason) {
  std::string out(reason.substr(0, kMaxLine / 2));
  for (char& c : out) c = c == '\n' ? ' ' : c;
  return out;
}

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

constexpr Nanos kHandshakeTime = 10'000'000'000;  // a joiner's time to say who it is
constexpr size_t kMaxJoining = 32;                // connections in their handshake at once

// Joiner: a connection to shard 0 that has not yet joined, one step of the handshake at a
// time (the leader serves them all at once: a silent or slow stranger delays no one).
struct Joiner {
  enum class Step { kNonce, kHello, kClock };
  Channel channel;
  std::string from;  // the peer's address, for the log
  Nanos until = 0;
  Step step = Step::kHello;
  uint32_t who = 0;
};

std::string PeerOf(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "a peer";
  return AddressFromSockaddr(reinterpret_cast<sockaddr*>(&ss), len).ToString();
}

// JoinOutcome: what one message did to a joiner.
enum class JoinOutcome { kGoOn, kJoined, kDrop };

// Admit: one message of a joiner's handshake. A joiner that breaks the protocol or fails to
// prove the key is dropped (kDrop, `why` says why); a shard that proved itself (or, without a
// key, said who it is) and would run something else ends the study (the error): that is a
// misconfigured shard, and waiting for it would only end in a timeout.
Result<JoinOutcome> Admit(Joiner& j, const Message& m, const ShardSpec& spec,
                          const PlanIdentity& identity, const RendezvousKey* key,
                          const std::vector<bool>& joined, std::string& why) {
  using Step = Joiner::Step;
  switch (j.step) {
    case Step::kNonce: {
      if (m.kind != MessageKind::kNonce) {
        why =
            "it did not open with a NONCE: this shard 0 requires the rendezvous key (start "
            "every shard with the same --rendezvous-key FILE)";
        return JoinOutcome::kDrop;
      }
      auto nonce = NewNonce();
      if (!nonce) return nonce.error();
      if (Status st = j.channel.Send({.kind = MessageKind::kNonce, .nonce = *nonce}); !st) {
        why = st.error().message;
        return JoinOutcome::kDrop;
      }
      j.channel.Authenticate(SessionKey(*key, *nonce, m.nonce), Direction::kFromLeader);
      j.step = Step::kHello;
      return JoinOutcome::kGoOn;
    }
    case Step::kHello: {
      if (m.kind == MessageKind::kNonce) {
        why =
            "it sent a NONCE: it has a --rendezvous-key, this shard 0 has none (give every "
            "shard the same key, or none)";
        return JoinOutcome::kDrop;
      }
      if (m.kind != MessageKind::kHello) {
        why = "it spoke before saying who it is";
        return JoinOutcome::kDrop;
      }
      const uint32_t who = m.shard.index;
      std::string refuse;
      if (m.shard.count != spec.count) {
        refuse = fmt::format("shard {} was started as one of {} shards, shard 0 as one of {}", who,
                             m.shard.count, spec.count);
      } else if (who == 0 || who >= spec.count || joined[who]) {
        refuse = fmt::format(
            "shard {} of {} has joined already or cannot exist (give each shard its own index)",
            who, spec.count);
      } else if (std::string d = Differs(identity, m.identity); !d.empty()) {
        refuse = fmt::format(
            "shard {} would run {} than shard 0: every shard needs the same scenario, flags and "
            "pqc-bench",
            who, d);
      }
      if (!refuse.empty()) {
        (void)j.channel.Send({.kind = MessageKind::kRefuse, .text = refuse});
        return MakeError(ErrorKind::kConfig, "rendezvous: " + refuse);
      }
      if (Status st = j.channel.Send({.kind = MessageKind::kWelcome}); !st) {
        why = st.error().message;
        return JoinOutcome::kDrop;
      }
      j.who = who;
      j.step = Step::kClock;
      return JoinOutcome::kGoOn;
    }
    case Step::kClock:
      // The joiner's clock rounds, answered at once: the leader's time as late as possible.
      if (m.kind == MessageKind::kReady) {
        if (joined[j.who]) {  // another connection claimed the index meanwhile
          why = fmt::format("shard {} has joined already", j.who);
          return JoinOutcome::kDrop;
        }
        return JoinOutcome::kJoined;
      }
      if (m.kind != MessageKind::kPing) {
        why = "expected PING or READY";
        return JoinOutcome::kDrop;
      }
      if (Status st = j.channel.Send({.kind = MessageKind::kPong, .t0 = m.t0, .t1 = UnixNowNs()});
          !st) {
        why = st.error().message;
        return JoinOutcome::kDrop;
      }
      return JoinOutcome::kGoOn;
  }
  return JoinOutcome::kDrop;
}

}  // namespace

Result<Leader> Leader::Open(const SocketAddress& addr, const ShardSpec& spec,
                            const PlanIdentity& identity, const RendezvousKey* key, Nanos deadline,
                            std::FILE* log) {
  if (key == nullptr && !addr.IsLoopback()) {
    return KeyRequired("rendezvous " + addr.ToString());
  }
  auto listener = ListenTcp(addr, 64, /*reuse_port=*/false);
  if (!listener) {
    return MakeError(ErrorKind::kIo, fmt::format("rendezvous {}: {} (shard 0 listens there; "
                                                 "choose a free port)",
                                                 addr.ToString(), listener.error().message));
  }
  fmt::print(log, "shard 0/{}: waiting for {} more shard(s) on {} ({})\n", spec.count,
             spec.count - 1, addr.ToString(),
             key != nullptr ? "each must prove the rendezvous key"
                            : "no key: loopback only, any local process may join");
  std::fflush(log);
  Leader leader;
  std::vector<bool> joined(spec.count, false);
  joined[0] = true;
  std::vector<Joiner> joining;
  auto refuse = [&](Joiner& j, std::string_view why) {
    fmt::print(log, "shard 0/{}: refused a connection from {}: {}\n", spec.count, j.from, why);
    std::fflush(log);
    (void)j.channel.Send({.kind = MessageKind::kRefuse, .text = std::string(why)});
  };
  while (leader.followers_.size() + 1 < spec.count) {
    const Nanos now = MonotonicNow();
    if (now >= deadline) {
      std::string missing;
      for (uint32_t i = 0; i < spec.count; ++i) {
        if (!joined[i]) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", i);
      }
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous {}: shard(s) {} of {} did not join in time; start "
                                   "every shard with the same --rendezvous{} (or raise "
                                   "--rendezvous-timeout)",
                                   addr.ToString(), missing, spec.count,
                                   key != nullptr ? " and --rendezvous-key" : ""));
    }
    std::vector<pollfd> fds{{listener->get(), POLLIN, 0}};
    Nanos wake = deadline;
    for (const Joiner& j : joining) {
      fds.push_back({j.channel.fd(), POLLIN, 0});
      wake = std::min(wake, j.until);
    }
    const int ms = static_cast<int>(std::clamp<Nanos>((wake - now) / 1'000'000 + 1, 1, 1000));
    if (::poll(fds.data(), fds.size(), ms) < 0 && errno != EINTR) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("rendezvous: poll failed: {}", std::strerror(errno)));
    }
    // Serve the joiners first (their descriptors line up with fds[1..] only until new ones
    // are added below).
    for (size_t i = 0; i < joining.size(); ++i) {
      Joiner& j = joining[i];
      std::string why;
      const bool readable = fds[i + 1].revents != 0;
      while (readable && why.empty()) {
        auto m = j.channel.TryReceive();
        if (!m) {
          why = m.error().message;
          break;
        }
        if (!*m) break;
        auto outcome = Admit(j, **m, spec, identity, key, joined, why);
        if (!outcome) return outcome.error();
        if (*outcome == JoinOutcome::kJoined) {
          joined[j.who] = true;
          fmt::print(log, "shard 0/{}: shard {} joined from {}\n", spec.count, j.who, j.from);
          std::fflush(log);
          leader.followers_.push_back({j.who, std::move(j.channel)});
          j.until = -1;  // done with: removed below
          break;
        }
      }
      if (why.empty() && j.until >= 0 && MonotonicNow() >= j.until) {
        why = "it did not finish joining within 10 s";
      }
      if (!why.empty()) {
        refuse(j, why);
        j.until = -1;
      }
    }
    std::erase_if(joining, [](const Joiner& j) { return j.until < 0; });
    // New connections: each gets its handshake time; beyond kMaxJoining at once, none.
    for (;;) {
      auto fd = AcceptNonBlocking(listener->get());
      if (!fd) return fd.error();
      if (!fd->valid()) break;
      Joiner j{.channel = Channel(std::move(*fd)),
               .from = "",
               .until = MonotonicNow() + kHandshakeTime,
               .step = key != nullptr ? Joiner::Step::kNonce : Joiner::Step::kHello};
      j.from = PeerOf(j.channel.fd());
      if (joining.size() >= kMaxJoining) {
        refuse(j, fmt::format("{} connections are joining already", kMaxJoining));
        continue;
      }
      joining.push_back(std::move(j));
    }
  }
  return leader;
}

Status Leader::Announce(uint64_t seq, int64_t start_at, uint16_t port, std::string_view roots_pem,
                        const std::vector<std::string>& netns) {
  for (Follower& f : followers_) {
    const Message m{.kind = MessageKind::kTrial,
                    .seq = seq,
                    .start_at = start_at,
                    .port = port,
                    .payload = roots_pem.size(),
                    .netns = f.shard < netns.size() ? netns[f.shard] : std::string()};
    if (Status st = f.channel.Send(m, roots_pem); !st) {
      return MakeError(ErrorKind::kIo, fmt::format("shard {}: {}", f.shard, st.error().message));
    }
  }
  return {};
}

Status Leader::Skip(uint64_t seq, std::string_view reason) {
  const std::string one_line = OneLine(reason);
  for (Follower& f : followers_) {
    if (Status st = f.channel.Send({.kind = MessageKind::kSkip, .seq = seq, .text = one_line});
        !st) {
      return st;
    }
  }
  return {};
}

Leader::Finished Leader::WaitDone(uint64_t seq, Nanos deadline) {
  Finished out;
  std::vector<Follower> kept;
  for (Follower& f : followers_) {
    auto m = f.channel.Receive(deadline);
    if (!m) {
      out.lost.emplace_back(f.shard, m.error().message);
      continue;
    }
    if (m->kind != MessageKind::kDone || m->seq != seq || m->shard.index != f.shard) {
      out.lost.emplace_back(f.shard, fmt::format("expected DONE for trial {}, got '{}'", seq,
                                                 FormatMessage(*m).substr(0, 80)));
      continue;
    }
    if (!m->valid) out.invalid.push_back(f.shard);
    kept.push_back(std::move(f));
  }
  followers_ = std::move(kept);
  return out;
}

void Leader::End() {
  for (Follower& f : followers_) (void)f.channel.Send({.kind = MessageKind::kEnd});
}

void Leader::Stop(std::string_view reason) {
  const std::string one_line = OneLine(reason);
  for (Follower& f : followers_) {
    (void)f.channel.Send({.kind = MessageKind::kStop, .text = one_line});
  }
}

}  // namespace pqc::scenario
