// rendezvous_follower — a joining shard's side of the rendezvous (rendezvous.h): the
// handshake up to shard 0's WELCOME, the clock offset, then the announced trials in order.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "net/socket.h"
#include "scenario/rendezvous.h"

namespace pqc::scenario {
namespace {

constexpr int64_t kPingRounds = 8;

// Introduced: how a joiner's handshake ended short of an error — welcomed, or turned away by
// shard 0's gate for now (a BUSY: its joining connections were full, a flood of strangers may
// hold them; or the connection closed before an answer), which a follower retries until its
// deadline. A REFUSE is not retried: it names something only the user can change.
struct Introduced {
  bool welcomed = false;
  std::string busy;  // why not, this time (printable)
};

// Answer: shard 0's reply during the handshake; a BUSY or a close, as Introduced.
Result<std::optional<Message>> Answer(Channel& ch, Nanos deadline, Introduced& out) {
  auto m = ch.Receive(deadline);
  if (!m) {
    if (m.error().message.find("closed the connection") != std::string::npos) {
      out.busy = "shard 0 closed the connection before answering";
      return std::optional<Message>();
    }
    return m.error();
  }
  if (m->kind == MessageKind::kBusy) {
    out.busy = Printable(m->text);
    return std::optional<Message>();
  }
  if (m->kind == MessageKind::kRefuse) {
    return MakeError(ErrorKind::kConfig, "rendezvous: shard 0 refused: " + Printable(m->text));
  }
  return std::optional<Message>(std::move(*m));
}

// Introduce: a joiner's side of the handshake up to shard 0's WELCOME. With a key: NONCE each
// way, then HELLO and WELCOME tagged, so shard 0 proves the key as well (a stranger at the
// rendezvous address cannot steer this shard).
Result<Introduced> Introduce(Channel& ch, const SocketAddress& leader, const ShardSpec& spec,
                             const PlanIdentity& identity, const RendezvousKey* key,
                             Nanos deadline) {
  Introduced out;
  if (key != nullptr) {
    auto mine = NewNonce();
    if (!mine) return mine.error();
    if (Status st = ch.Send({.kind = MessageKind::kNonce, .nonce = *mine}); !st) return st.error();
    auto theirs = Answer(ch, deadline, out);
    if (!theirs) return theirs.error();
    if (!*theirs) return out;
    if ((*theirs)->kind != MessageKind::kNonce) {
      return MakeError(ErrorKind::kConfig,
                       fmt::format("rendezvous {}: shard 0 answered '{}' to a NONCE: it has no "
                                   "--rendezvous-key (give every shard the same key)",
                                   leader.ToString(), Printable(FormatMessage(**theirs), 60)));
    }
    auto session = SessionKey(*key, (*theirs)->nonce, *mine);
    if (!session) return session.error();
    ch.Authenticate(std::move(*session), Direction::kFromFollower);
  }
  Message hello{.kind = MessageKind::kHello, .shard = spec, .identity = identity};
  if (Status st = ch.Send(hello); !st) return st.error();
  auto answer = Answer(ch, deadline, out);
  if (!answer) {
    if (key == nullptr || answer.error().kind == ErrorKind::kConfig) return answer.error();
    return MakeError(ErrorKind::kConfig,
                     fmt::format("rendezvous {}: shard 0 did not prove the rendezvous key ({}): "
                                 "another --rendezvous-key there, or not pqc-bench's shard 0",
                                 leader.ToString(), answer.error().message));
  }
  if (!*answer) return out;
  if ((*answer)->kind == MessageKind::kNonce) {
    return MakeError(ErrorKind::kConfig,
                     "rendezvous: shard 0 requires the rendezvous key: give this shard the same "
                     "--rendezvous-key FILE as shard 0");
  }
  if ((*answer)->kind != MessageKind::kWelcome) {
    return MakeError(ErrorKind::kIo, "rendezvous: shard 0 did not welcome this shard");
  }
  out.welcomed = true;
  return out;
}

// MeasureClock: the clock rounds, the one with the least delay kept.
Result<ClockOffset> MeasureClock(Channel& ch, Nanos deadline) {
  ClockOffset best{0, INT64_MAX};
  for (int64_t i = 0; i < kPingRounds; ++i) {
    const int64_t t0 = UnixNowNs();
    if (Status st = ch.Send({.kind = MessageKind::kPing, .t0 = t0}); !st) return st.error();
    auto pong = ch.Receive(deadline);
    if (!pong) return pong.error();
    const int64_t t2 = UnixNowNs();
    if (pong->kind != MessageKind::kPong || pong->t0 != t0) {
      return MakeError(ErrorKind::kIo, "rendezvous: shard 0 answered a PING wrongly");
    }
    // The leader read its clock halfway through the round trip, by assumption.
    if (t2 - t0 < best.rtt_ns) best = {pong->t1 - (t0 + t2) / 2, t2 - t0};
  }
  return best;
}

}  // namespace

Result<Follower> Follower::Join(const SocketAddress& leader, const SocketAddress& serve_host,
                                const ShardSpec& spec, const PlanIdentity& identity,
                                const RendezvousKey* key, Nanos deadline) {
  if (key == nullptr && !leader.IsLoopback()) {
    return KeyRequired("rendezvous " + leader.ToString());
  }
  // Shard 0 may not listen yet (the scheduler starts every task at about the same time), or
  // be busy with strangers: retry a refused connection and a BUSY until the deadline, waiting
  // a little longer each time (0.1 s to 1 s).
  std::string busy;
  int busy_times = 0;
  useconds_t pause = 100'000;
  for (;;) {
    int err = 0;
    auto fd = ConnectTcpNonBlocking(leader, &err);
    if (fd) {
      pollfd p{fd->get(), POLLOUT, 0};
      (void)::poll(&p, 1, 2000);
      err = SocketError(fd->get());
      if (err == 0 && (p.revents & POLLOUT) != 0) {
        Channel ch(std::move(*fd), kMaxPayload);
        auto introduced = Introduce(ch, leader, spec, identity, key, deadline);
        if (!introduced) return introduced.error();
        if (introduced->welcomed) {
          auto clock = MeasureClock(ch, deadline);
          if (!clock) return clock.error();
          if (Status st = ch.Send({.kind = MessageKind::kReady}); !st) return st.error();
          return Follower(std::move(ch), serve_host, spec, *clock);
        }
        busy = std::move(introduced->busy);
        ++busy_times;
      }
    }
    if (MonotonicNow() >= deadline) {
      if (busy_times > 0) {
        return MakeError(ErrorKind::kIo,
                         fmt::format("rendezvous {}: shard 0 turned this shard away {} time(s) "
                                     "until the deadline (last: {}); something else holds its "
                                     "port's joining connections (see shard 0's log), or raise "
                                     "--rendezvous-timeout",
                                     leader.ToString(), busy_times, busy));
      }
      return MakeError(
          ErrorKind::kIo,
          fmt::format("rendezvous {}: shard 0 cannot be reached ({}); start it with "
                      "--shard 0/{} and the same --rendezvous",
                      leader.ToString(), err != 0 ? std::strerror(err) : "no answer", spec.count));
    }
    ::usleep(pause);
    pause = std::min<useconds_t>(2 * pause, 1'000'000);
  }
}

Result<TrialStart> Follower::Next(Nanos deadline) {
  auto m = channel_.Receive(deadline);
  if (!m) return m.error();
  TrialStart t;
  t.seq = m->seq;
  switch (m->kind) {
    case MessageKind::kEnd:
      t.end = true;
      return t;
    case MessageKind::kStop:
      t.stop = true;
      t.text = m->text;
      return t;
    case MessageKind::kSkip:
      t.skip = true;
      t.text = m->text;
      return t;
    case MessageKind::kTrial:
      t.roots_pem = std::move(m->body);
      t.netns = m->netns;
      t.start_at = m->start_at - clock_.offset_ns;
      // Shard 0 names a port only: the host is this shard's own --serve-host (by default the
      // rendezvous host), so no message can point this shard's load at another machine.
      t.target = serve_host_.WithPort(m->port);
      return t;
    default:
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous: unexpected '{}' from shard 0", FormatMessage(*m)));
  }
}

Status Follower::Done(uint64_t seq, bool valid) {
  return channel_.Send({.kind = MessageKind::kDone, .shard = spec_, .seq = seq, .valid = valid});
}

}  // namespace pqc::scenario
