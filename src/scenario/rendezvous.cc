#include "scenario/rendezvous.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>

#include "net/socket.h"

namespace pqc::scenario {
namespace {

constexpr int64_t kPingRounds = 8;

const char* KindName(MessageKind k) {
  switch (k) {
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
  }
  return "?";
}

Error Protocol(std::string_view line, std::string_view why) {
  return MakeError(ErrorKind::kIo,
                   fmt::format("rendezvous: malformed message '{}': {} (is a pqc-bench of the "
                               "same version on the other end?)",
                               line.substr(0, 80), why));
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
    case MessageKind::kHello:
      return fmt::format("{} shard={} count={} version={} scenario={} options={} plan={}", k,
                         m.shard.index, m.shard.count, m.identity.version, m.identity.scenario,
                         m.identity.options, m.identity.plan);
    case MessageKind::kRefuse:
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
  for (int i = 0; i <= static_cast<int>(MessageKind::kEnd); ++i) {
    if (kind == KindName(static_cast<MessageKind>(i))) m.kind = static_cast<MessageKind>(i);
  }
  if (kind != KindName(m.kind)) return Protocol(line, "unknown kind");
  // Kinds whose text is the rest of the line (free words, after a sequence number for SKIP).
  if (m.kind == MessageKind::kRefuse) {
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
      break;
  }
  if (f->size() != expected) return Protocol(line, "an unknown field");
  return m;
}

Status Channel::Send(const Message& m, std::string_view payload) {
  std::string out = FormatMessage(m);
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

Status Channel::Fill(Nanos deadline) {
  for (;;) {
    const Nanos left = deadline - MonotonicNow();
    if (left <= 0) return MakeError(ErrorKind::kIo, "rendezvous: timed out waiting for a shard");
    pollfd p{fd_.get(), POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<Nanos>(left / 1'000'000 + 1, 60'000)));
    if (r < 0 && errno == EINTR) continue;
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
    const size_t nl = buf_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return ParseMessage(line);
    }
    if (buf_.size() > kMaxLine) return Protocol(buf_, "no end of line within 4096 bytes");
    if (Status st = Fill(deadline); !st) return st.error();
  }
}

Result<std::string> Channel::ReceiveBytes(uint64_t n, Nanos deadline) {
  while (buf_.size() < n) {
    if (Status st = Fill(deadline); !st) return st.error();
  }
  std::string out = buf_.substr(0, n);
  buf_.erase(0, n);
  return out;
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

// Blocking accept with a deadline on the non-blocking listener.
Result<ScopedFd> AcceptUntil(int listen_fd, Nanos deadline) {
  for (;;) {
    auto fd = AcceptNonBlocking(listen_fd);
    if (!fd) return fd.error();
    if (fd->valid()) return std::move(*fd);
    const Nanos left = deadline - MonotonicNow();
    if (left <= 0) return ScopedFd{};
    pollfd p{listen_fd, POLLIN, 0};
    (void)::poll(&p, 1, static_cast<int>(std::min<Nanos>(left / 1'000'000 + 1, 1000)));
  }
}

}  // namespace

Result<Leader> Leader::Open(const SocketAddress& addr, const ShardSpec& spec,
                            const PlanIdentity& identity, Nanos deadline, std::FILE* log) {
  auto listener = ListenTcp(addr, 64, /*reuse_port=*/false);
  if (!listener) {
    return MakeError(ErrorKind::kIo, fmt::format("rendezvous {}: {} (shard 0 listens there; "
                                                 "choose a free port)",
                                                 addr.ToString(), listener.error().message));
  }
  fmt::print(log, "shard 0/{}: waiting for {} more shard(s) on {}\n", spec.count, spec.count - 1,
             addr.ToString());
  std::fflush(log);
  Leader leader;
  std::vector<bool> joined(spec.count, false);
  joined[0] = true;
  while (leader.followers_.size() + 1 < spec.count) {
    auto fd = AcceptUntil(listener->get(), deadline);
    if (!fd) return fd.error();
    if (!fd->valid()) {
      std::string missing;
      for (uint32_t i = 0; i < spec.count; ++i) {
        if (!joined[i]) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", i);
      }
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous {}: shard(s) {} of {} did not join in time; start "
                                   "every shard with the same --rendezvous (or raise "
                                   "--rendezvous-timeout)",
                                   addr.ToString(), missing, spec.count));
    }
    Channel ch(std::move(*fd));
    auto hello = ch.Receive(deadline);
    if (!hello) return hello.error();
    if (hello->kind != MessageKind::kHello) {
      return MakeError(ErrorKind::kIo, "rendezvous: a peer spoke before saying who it is");
    }
    const uint32_t who = hello->shard.index;
    std::string refuse;
    if (hello->shard.count != spec.count) {
      refuse = fmt::format("shard {} was started as one of {} shards, shard 0 as one of {}", who,
                           hello->shard.count, spec.count);
    } else if (who == 0 || who >= spec.count || joined[who]) {
      refuse = fmt::format(
          "shard {} of {} has joined already or cannot exist (give each shard "
          "its own index)",
          who, spec.count);
    } else if (std::string d = Differs(identity, hello->identity); !d.empty()) {
      refuse = fmt::format(
          "shard {} would run {} than shard 0: every shard needs the same "
          "scenario, flags and pqc-bench",
          who, d);
    }
    if (!refuse.empty()) {
      (void)ch.Send({.kind = MessageKind::kRefuse, .text = refuse});
      return MakeError(ErrorKind::kConfig, "rendezvous: " + refuse);
    }
    if (Status st = ch.Send({.kind = MessageKind::kWelcome}); !st) return st.error();
    // The joiner's clock rounds, answered at once: the leader's time as late as possible.
    for (;;) {
      auto m = ch.Receive(deadline);
      if (!m) return m.error();
      if (m->kind == MessageKind::kReady) break;
      if (m->kind != MessageKind::kPing) {
        return MakeError(ErrorKind::kIo, "rendezvous: expected PING or READY from a joiner");
      }
      if (Status st = ch.Send({.kind = MessageKind::kPong, .t0 = m->t0, .t1 = UnixNowNs()}); !st) {
        return st.error();
      }
    }
    joined[who] = true;
    fmt::print(log, "shard 0/{}: shard {} joined\n", spec.count, who);
    std::fflush(log);
    leader.followers_.push_back({who, std::move(ch)});
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

Result<std::vector<uint32_t>> Leader::WaitDone(uint64_t seq, Nanos deadline) {
  std::vector<uint32_t> invalid;
  for (Follower& f : followers_) {
    auto m = f.channel.Receive(deadline);
    if (!m) {
      return MakeError(ErrorKind::kIo, fmt::format("shard {} did not finish trial {}: {}", f.shard,
                                                   seq, m.error().message));
    }
    if (m->kind != MessageKind::kDone || m->seq != seq || m->shard.index != f.shard) {
      return MakeError(ErrorKind::kIo, fmt::format("shard {}: expected DONE for trial {}, got '{}'",
                                                   f.shard, seq, FormatMessage(*m)));
    }
    if (!m->valid) invalid.push_back(f.shard);
  }
  return invalid;
}

void Leader::End() {
  for (Follower& f : followers_) (void)f.channel.Send({.kind = MessageKind::kEnd});
}

Result<Follower> Follower::Join(const SocketAddress& leader, const ShardSpec& spec,
                                const PlanIdentity& identity, Nanos deadline) {
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
        Message hello{.kind = MessageKind::kHello, .shard = spec, .identity = identity};
        if (Status st = ch.Send(hello); !st) return st.error();
        auto answer = ch.Receive(deadline);
        if (!answer) return answer.error();
        if (answer->kind == MessageKind::kRefuse) {
          return MakeError(ErrorKind::kConfig, "rendezvous: shard 0 refused: " + answer->text);
        }
        if (answer->kind != MessageKind::kWelcome) {
          return MakeError(ErrorKind::kIo, "rendezvous: shard 0 did not welcome this shard");
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
        return Follower(std::move(ch), leader, spec, best);
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
    case MessageKind::kSkip:
      t.skip = true;
      t.text = m->text;
      return t;
    case MessageKind::kTrial: {
      auto roots = channel_.ReceiveBytes(m->payload, deadline);
      if (!roots) return roots.error();
      t.roots_pem = std::move(*roots);
      t.netns = m->netns;
      t.start_at = m->start_at - clock_.offset_ns;
      t.target = leader_;
      auto* sa = reinterpret_cast<sockaddr*>(&t.target.storage);
      // The target listens on the leader's host: the address this shard reached it at.
      if (sa->sa_family == AF_INET) {
        reinterpret_cast<sockaddr_in*>(sa)->sin_port = htons(m->port);
      } else {
        reinterpret_cast<sockaddr_in6*>(sa)->sin6_port = htons(m->port);
      }
      return t;
    }
    default:
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous: unexpected '{}' from shard 0", FormatMessage(*m)));
  }
}

Status Follower::Done(uint64_t seq, bool valid) {
  return channel_.Send({.kind = MessageKind::kDone, .shard = spec_, .seq = seq, .valid = valid});
}

}  // namespace pqc::scenario
