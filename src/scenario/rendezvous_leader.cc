// rendezvous_leader — shard 0's side of the rendezvous (rendezvous.h): the port, whose
// joining connections the gate serves (rendezvous_gate.h), then per trial the announcement,
// the wait for every DONE, SKIP, END and STOP.
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
#include "scenario/rendezvous_gate.h"

namespace pqc::scenario {
namespace {

// OneLine: a reason as the rest of one message line (SKIP, STOP).
std::string OneLine(std::string_view reason) {
  std::string out(reason.substr(0, kMaxLine / 2));
  for (char& c : out) c = c == '\n' ? ' ' : c;
  return out;
}

// kAcceptPause: how long shard 0 stops accepting after accept fails (out of descriptors or
// buffers under a flood): the joiners it holds time out meanwhile and free theirs.
constexpr Nanos kAcceptPause = 100'000'000;
// kAcceptsPerWake: new connections taken per wake-up (the joiners are served in between).
constexpr int kAcceptsPerWake = 64;

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
  JoinGate gate(spec, identity, key, log);
  Nanos accept_paused_until = 0;
  while (leader.followers_.size() + 1 < spec.count) {
    const Nanos now = MonotonicNow();
    if (now >= deadline) {
      std::string missing;
      for (uint32_t i = 0; i < spec.count; ++i) {
        if (!gate.has_joined(i)) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", i);
      }
      const std::string refused = gate.Summary();
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous {}: shard(s) {} of {} did not join in time{}; start "
                                   "every shard with the same --rendezvous{} (or raise "
                                   "--rendezvous-timeout)",
                                   addr.ToString(), missing, spec.count,
                                   refused.empty() ? "" : " (" + refused + ")",
                                   key != nullptr ? " and --rendezvous-key" : ""));
    }
    const bool accepting = now >= accept_paused_until;
    std::vector<pollfd> fds;
    if (accepting) fds.push_back({listener->get(), POLLIN, 0});
    Nanos wake = accepting ? deadline : std::min(deadline, accept_paused_until);
    gate.Watch(fds, wake);
    const int ms = static_cast<int>(std::clamp<Nanos>((wake - now) / 1'000'000 + 1, 1, 1000));
    if (::poll(fds.data(), fds.size(), ms) < 0 && errno != EINTR) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("rendezvous: poll failed: {}", std::strerror(errno)));
    }
    if (Status st = gate.Serve(); !st) return st.error();
    for (JoinGate::Joined& j : gate.TakeJoined()) {
      leader.followers_.push_back({j.shard, std::move(j.channel)});
    }
    for (int i = 0; accepting && i < kAcceptsPerWake; ++i) {
      SocketAddress from;
      auto fd = AcceptNonBlocking(listener->get(), &from);
      if (!fd) {
        // Out of descriptors or memory (a flood, or a low `ulimit -n`): not the end of the
        // wait — the joiners held now will be refused in time and free theirs.
        fmt::print(log, "shard 0/{}: {}; not accepting for {} ms ({} connection(s) joining)\n",
                   spec.count, fd.error().message, kAcceptPause / 1'000'000, gate.joining());
        std::fflush(log);
        accept_paused_until = MonotonicNow() + kAcceptPause;
        break;
      }
      if (!fd->valid()) break;
      gate.Add(std::move(*fd), from);
    }
  }
  if (const std::string refused = gate.Summary(); !refused.empty()) {
    fmt::print(log, "shard 0/{}: every shard has joined; {} while waiting\n", spec.count, refused);
    std::fflush(log);
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
