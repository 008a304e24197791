#include "scenario/rendezvous.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>

#include "net/socket.h"

namespace pqc::scenario {
namespace {

constexpr int64_t kPingRounds = 8;
constexpr std::string_view kNeedsKey =
    "rendezvous {}: not a loopback address, and no --rendezvous-key: on a network every shard "
    "must prove a shared key (--rendezvous-key FILE on every shard; make FILE with "
    "(umask 077; head -c 32 /dev/urandom > FILE)), or use 127.0.0.1 for shards on this machine";

const char* KindName(MessageKind k) {
  switch (k) {
    case MessageKind::kNonce:
      return "NONCE";
    case MessageKind::kHello:
      return "HELLO";
    case MessageKind::kWelcome:
      return "WELCOME";
    case MessageKind::kRefuse:
      return "REFUSE";
    case MessageKind::kPing:
      return "PING";
    case MessageKind::kPong:
      return "PONG";
    case MessageKind::kReady:
      return "READY";
    case MessageKind::kTrial:
      return "TRIAL";
    case MessageKind::kSkip:
      return "SKIP";
    case MessageKind::kDone:
      return "DONE";
    case MessageKind::kEnd:
      return "END";
    case MessageKind::kStop:
      return "STOP";
  }
  return "?";
}

Error Protocol(std::string_view line, std::string_view why) {
  // What a stranger sent goes to the log: its bytes outside printable ASCII as '?'.
  std::string shown(line.substr(0, 80));
  for (char& c : shown) c = c >= 0x20 && c < 0x7f ? c : '?';
  return MakeError(ErrorKind::kIo,
                   fmt::format("rendezvous: malformed message '{}': {} (is a pqc-bench of the "
                               "same version on the other end?)",
                               shown, why));
}

// Fields: the key=value tokens of a line after its kind, each key once.
Result<std::map<std::string, std::string, std::less<>>> Fields(std::string_view line,
                                                               std::string_view rest) {
  std::map<std::string, std::string, std::less<>> out;
  while (!rest.empty()) {
    const size_t sp = rest.find(' ');
    const std::string_view token = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
    const size_t eq = token.find('=');
    if (eq == std::string_view::npos || eq == 0) return Protocol(line, "a field is not key=value");
    if (!out.emplace(std::string(token.substr(0, eq)), std::string(token.substr(eq + 1))).second) {
      return Protocol(line, "a field appears twice");
    }
  }
  return out;
}

template <typename T>
Result<T> Number(std::string_view line, const std::map<std::string, std::string, std::less<>>& f,
                 std::string_view key) {
  auto it = f.find(key);
  if (it == f.end()) return Protocol(line, fmt::format("no {}=", key));
  T v{};
  const char* end = it->second.data() + it->second.size();
  auto [p, ec] = std::from_chars(it->second.data(), end, v);
  if (it->second.empty() || ec != std::errc() || p != end) {
    return Protocol(line, fmt::format("{}= is not a number", key));
  }
  return v;
}

Result<std::string> Text(std::string_view line,
                         const std::map<std::string, std::string, std::less<>>& f,
                         std::string_view key) {
  auto it = f.find(key);
  if (it == f.end() || it->second.empty()) return Protocol(line, fmt::format("no {}=", key));
  return it->second;
}

}  // namespace

std::string Digest(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

std::string FormatMessage(const Message& m) {
  const char* k = KindName(m.kind);
  switch (m.kind) {
    case MessageKind::kNonce:
      return fmt::format("{} n={}", k, m.nonce);
    case MessageKind::kHello:
      return fmt::format("{} shard={} count={} version={} scenario={} options={} plan={}", k,
                         m.shard.index, m.shard.count, m.identity.version, m.identity.scenario,
                         m.identity.options, m.identity.plan);
    case MessageKind::kRefuse:
    case MessageKind::kStop:
      return fmt::format("{} {}", k, m.text);
    case MessageKind::kPing:
      return fmt::format("{} t0={}", k, m.t0);
    case MessageKind::kPong:
      return fmt::format("{} t0={} t1={}", k, m.t0, m.t1);
    case MessageKind::kTrial:
      return fmt::format("{} seq={} start={} port={} roots={}{}", k, m.seq, m.start_at, m.port,
                         m.payload, m.netns.empty() ? "" : " netns=" + m.netns);
    case MessageKind::kSkip:
      return fmt::format("{} seq={} {}", k, m.seq, m.text);
    case MessageKind::kDone:
      return fmt::format("{} shard={} seq={} valid={}", k, m.shard.index, m.seq, m.valid ? 1 : 0);
    case MessageKind::kWelcome:
    case MessageKind::kReady:
    case MessageKind::kEnd:
      return k;
  }
  return k;
}

Result<Message> ParseMessage(std::string_view line) {
  if (line.size() > kMaxLine) return Protocol(line, "longer than 4096 bytes");
  const size_t sp = line.find(' ');
  const std::string_view kind = line.substr(0, sp);
  const std::string_view rest =
      sp == std::string_view::npos ? std::string_view{} : line.substr(sp + 1);
  Message m;
  for (int i = 0; i <= static_cast<int>(MessageKind::kStop); ++i) {
    if (kind == KindName(static_cast<MessageKind>(i))) m.kind = static_cast<MessageKind>(i);
  }
  if (kind != KindName(m.kind)) return Protocol(line, "unknown kind");
  // Kinds whose text is the rest of the line (free words, after a sequence number for SKIP).
  if (m.kind == MessageKind::kRefuse || m.kind == MessageKind::kStop) {
    m.text = std::string(rest);
    return m;
  }
  std::string_view fields_text = rest;
  if (m.kind == MessageKind::kSkip) {
    const size_t sp2 = rest.find(' ');
    fields_text = rest.substr(0, sp2);
    m.text = sp2 == std::string_view::npos ? "" : std::string(rest.substr(sp2 + 1));
  }
  auto f = Fields(line, fields_text);
  if (!f) return f.error();
  size_t expected = 0;
  auto num = [&]<typename T>(T& out, std::string_view key) -> Status {
    auto v = Number<T>(line, *f, key);
    if (!v) return v.error();
    out = *v;
    ++expected;
    return {};
  };
  auto text = [&](std::string& out, std::string_view key) -> Status {
    auto v = Text(line, *f, key);
    if (!v) return v.error();
    out = *v;
    ++expected;
    return {};
  };
  Status st;
  switch (m.kind) {
    case MessageKind::kNonce: {
      if (!(st = text(m.nonce, "n"))) return st.error();
      const bool hex = std::all_of(m.nonce.begin(), m.nonce.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      });
      if (m.nonce.size() != kNonceHex || !hex) {
        return Protocol(line, "n= is not 32 lowercase hex digits");
      }
      break;
    }
    case MessageKind::kHello: {
      if (!(st = num(m.shard.index, "shard")) || !(st = num(m.shard.count, "count")) ||
          !(st = text(m.identity.version, "version")) ||
          !(st = text(m.identity.scenario, "scenario")) ||
          !(st = text(m.identity.options, "options")) || !(st = text(m.identity.plan, "plan"))) {
        return st.error();
      }
      break;
    }
    case MessageKind::kPing:
      if (!(st = num(m.t0, "t0"))) return st.error();
      break;
    case MessageKind::kPong:
      if (!(st = num(m.t0, "t0")) || !(st = num(m.t1, "t1"))) return st.error();
      break;
    case MessageKind::kTrial:
      if (!(st = num(m.seq, "seq")) || !(st = num(m.start_at, "start")) ||
          !(st = num(m.port, "port")) || !(st = num(m.payload, "roots"))) {
        return st.error();
      }
      if (m.payload > kMaxPayload) return Protocol(line, "roots= over 1 MiB");
      if (f->count("netns") > 0) {
        if (!(st = text(m.netns, "netns"))) return st.error();
        if (!IsToolNetns(m.netns)) {
          return Protocol(line,
                          "netns= is not a namespace pqc-bench made (/run/netns/pqc-bench-…)");
        }
      }
      break;
    case MessageKind::kSkip:
      if (!(st = num(m.seq, "seq"))) return st.error();
      break;
    case MessageKind::kDone: {
      uint32_t valid = 0;
      if (!(st = num(m.shard.index, "shard")) || !(st = num(m.seq, "seq")) ||
          !(st = num(valid, "valid"))) {
        return st.error();
      }
      if (valid > 1) return Protocol(line, "valid= is not 0 or 1");
      m.valid = valid == 1;
      break;
    }
    case MessageKind::kWelcome:
    case MessageKind::kReady:
    case MessageKind::kEnd:
    case MessageKind::kRefuse:
    case MessageKind::kStop:
      break;
  }
  if (f->size() != expected) return Protocol(line, "an unknown field");
  return m;
}

void Channel::Authenticate(std::string session, Direction self) {
  session_ = std::move(session);
  self_ = self;
  sent_ = received_ = 0;
}

Status Channel::Send(const Message& m, std::string_view payload) {
  std::string out = FormatMessage(m);
  if (authenticated()) {
    out += " mac=" + MessageTag(session_, self_, sent_++, out, payload);
  }
  out += '\n';
  out += payload;
  size_t off = 0;
  while (off < out.size()) {
    const ssize_t n = ::send(fd_.get(), out.data() + off, out.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd p{fd_.get(), POLLOUT, 0};
      (void)::poll(&p, 1, 1000);  // a control message is small; the peer reads it soon
      continue;
    }
    if (n <= 0) {
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous: send failed: {}", std::strerror(errno)));
    }
    off += static_cast<size_t>(n);
  }
  return {};
}

Result<std::optional<Message>> Channel::Take() {
  const size_t nl = buf_.find('\n');
  // The longest line: a message, then " mac=" and the tag.
  constexpr size_t kLongest = kMaxLine + 5 + kTagHex;
  if (nl == std::string::npos) {
    if (buf_.size() > kLongest) return Protocol(buf_, "no end of line within 4096 bytes");
    return std::optional<Message>();
  }
  const std::string_view line(buf_.data(), nl);
  std::string_view text = line, tag;
  if (authenticated()) {
    auto split = SplitTag(line);
    if (!split) {
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous: a message without its tag on an authenticated "
                                   "connection: '{}'",
                                   line.substr(0, 80)));
    }
    text = split->message;
    tag = split->tag;
  }
  auto m = ParseMessage(text);
  if (!m) return m.error();
  if (buf_.size() - nl - 1 < m->payload) return std::optional<Message>();  // more to come
  const std::string_view payload = std::string_view(buf_).substr(nl + 1, m->payload);
  if (authenticated()) {
    const Direction peer =
        self_ == Direction::kFromLeader ? Direction::kFromFollower : Direction::kFromLeader;
    if (!SameTag(tag, MessageTag(session_, peer, received_, text, payload))) {
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous: message {} ('{}') fails authentication: another "
                                   "--rendezvous-key, a replayed or an altered message",
                                   received_, text.substr(0, 60)));
    }
    ++received_;
  }
  m->body = std::string(payload);
  buf_.erase(0, nl + 1 + m->payload);
  return std::optional<Message>(std::move(*m));
}

Status Channel::Fill(Nanos deadline) {
  for (;;) {
    const Nanos left = deadline - MonotonicNow();
    // Past the deadline, what has arrived already is still read (a leader that waited for one
    // shard until the deadline finds the others' answers waiting).
    pollfd p{fd_.get(), POLLIN, 0};
    const int ms = left <= 0 ? 0 : static_cast<int>(std::min<Nanos>(left / 1'000'000 + 1, 60'000));
    const int r = ::poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0 && left <= 0) {
      return MakeError(ErrorKind::kIo, "rendezvous: timed out waiting for a shard");
    }
    if (r <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::recv(fd_.get(), chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      return MakeError(ErrorKind::kIo,
                       n == 0 ? "rendezvous: the other shard closed the "
                                "connection (did it exit? see its output)"
                              : fmt::format("rendezvous: recv failed: {}", std::strerror(errno)));
    }
    buf_.append(chunk, static_cast<size_t>(n));
    return {};
  }
}

Result<Message> Channel::Receive(Nanos deadline) {
  for (;;) {
    auto m = Take();
    if (!m) return m.error();
    if (*m) return std::move(**m);
    if (Status st = Fill(deadline); !st) return st.error();
  }
}

Result<std::optional<Message>> Channel::TryReceive() {
  auto m = Take();
  if (!m || *m) return m;
  char chunk[4096];
  const ssize_t n = ::recv(fd_.get(), chunk, sizeof chunk, MSG_DONTWAIT);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return std::optional<Message>();
  if (n <= 0) {
    return MakeError(ErrorKind::kIo, n == 0 ? "closed the connection"
                                            : fmt::format("recv failed: {}", std::strerror(errno)));
  }
  buf_.append(chunk, static_cast<size_t>(n));
  return Take();
}

namespace {

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
    return MakeError(ErrorKind::kUsage, fmt::format(kNeedsKey, addr.ToString()));
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

bool IsToolNetns(std::string_view path) {
  constexpr std::string_view kPrefix = "/run/netns/pqc-bench-";
  if (path.size() <= kPrefix.size() || path.size() > 200 ||
      path.substr(0, kPrefix.size()) != kPrefix) {
    return false;
  }
  for (char c : path.substr(kPrefix.size())) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
  }
  return true;
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
  std::string one_line(reason.substr(0, kMaxLine / 2));
  for (char& c : one_line) c = c == '\n' ? ' ' : c;
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
  std::string one_line(reason.substr(0, kMaxLine / 2));
  for (char& c : one_line) c = c == '\n' ? ' ' : c;
  for (Follower& f : followers_) {
    (void)f.channel.Send({.kind = MessageKind::kStop, .text = one_line});
  }
}

namespace {

// Introduce: a joiner's side of the handshake up to shard 0's WELCOME. With a key: NONCE each
// way, then HELLO and WELCOME tagged, so shard 0 proves the key as well (a stranger at the
// rendezvous address cannot steer this shard).
Status Introduce(Channel& ch, const SocketAddress& leader, const ShardSpec& spec,
                 const PlanIdentity& identity, const RendezvousKey* key, Nanos deadline) {
  if (key != nullptr) {
    auto mine = NewNonce();
    if (!mine) return mine.error();
    if (Status st = ch.Send({.kind = MessageKind::kNonce, .nonce = *mine}); !st) return st;
    auto theirs = ch.Receive(deadline);
    if (!theirs) return theirs.error();
    if (theirs->kind == MessageKind::kRefuse) {
      return MakeError(ErrorKind::kConfig, "rendezvous: shard 0 refused: " + theirs->text);
    }
    if (theirs->kind != MessageKind::kNonce) {
      return MakeError(ErrorKind::kConfig,
                       fmt::format("rendezvous {}: shard 0 answered '{}' to a NONCE: it has no "
                                   "--rendezvous-key (give every shard the same key)",
                                   leader.ToString(), FormatMessage(*theirs).substr(0, 60)));
    }
    ch.Authenticate(SessionKey(*key, theirs->nonce, *mine), Direction::kFromFollower);
  }
  Message hello{.kind = MessageKind::kHello, .shard = spec, .identity = identity};
  if (Status st = ch.Send(hello); !st) return st;
  auto answer = ch.Receive(deadline);
  if (!answer) {
    if (key == nullptr) return answer.error();
    return MakeError(ErrorKind::kConfig,
                     fmt::format("rendezvous {}: shard 0 did not prove the rendezvous key ({}): "
                                 "another --rendezvous-key there, or not pqc-bench's shard 0",
                                 leader.ToString(), answer.error().message));
  }
  if (answer->kind == MessageKind::kRefuse) {
    return MakeError(ErrorKind::kConfig, "rendezvous: shard 0 refused: " + answer->text);
  }
  if (answer->kind == MessageKind::kNonce) {
    return MakeError(ErrorKind::kConfig,
                     "rendezvous: shard 0 requires the rendezvous key: give this shard the same "
                     "--rendezvous-key FILE as shard 0");
  }
  if (answer->kind != MessageKind::kWelcome) {
    return MakeError(ErrorKind::kIo, "rendezvous: shard 0 did not welcome this shard");
  }
  return {};
}

}  // namespace

Result<Follower> Follower::Join(const SocketAddress& leader, const SocketAddress& serve_host,
                                const ShardSpec& spec, const PlanIdentity& identity,
                                const RendezvousKey* key, Nanos deadline) {
  if (key == nullptr && !leader.IsLoopback()) {
    return MakeError(ErrorKind::kUsage, fmt::format(kNeedsKey, leader.ToString()));
  }
  // Shard 0 may not listen yet (the scheduler starts every task at about the same time):
  // retry a refused connection until the deadline.
  for (;;) {
    int err = 0;
    auto fd = ConnectTcpNonBlocking(leader, &err);
    if (fd) {
      pollfd p{fd->get(), POLLOUT, 0};
      (void)::poll(&p, 1, 2000);
      err = SocketError(fd->get());
      if (err == 0 && (p.revents & POLLOUT) != 0) {
        Channel ch(std::move(*fd));
        if (Status st = Introduce(ch, leader, spec, identity, key, deadline); !st) {
          return st.error();
        }
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
        if (Status st = ch.Send({.kind = MessageKind::kReady}); !st) return st.error();
        return Follower(std::move(ch), serve_host, spec, best);
      }
    }
    if (MonotonicNow() >= deadline) {
      return MakeError(
          ErrorKind::kIo,
          fmt::format("rendezvous {}: shard 0 cannot be reached ({}); start it with "
                      "--shard 0/{} and the same --rendezvous",
                      leader.ToString(), err != 0 ? std::strerror(err) : "no answer", spec.count));
    }
    ::usleep(100'000);
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
