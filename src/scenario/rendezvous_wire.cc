#include "scenario/rendezvous_wire.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>

namespace pqc::scenario {
namespace {

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
    case MessageKind::kBusy:
      return "BUSY";
  }
  return "?";
}

Error Protocol(std::string_view line, std::string_view why) {
  return MakeError(ErrorKind::kIo,
                   fmt::format("rendezvous: malformed message '{}': {} (is a pqc-bench of the "
                               "same version on the other end?)",
                               Printable(line, 80), why));
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

std::string Printable(std::string_view text, size_t max) {
  std::string shown(text.substr(0, max));
  for (char& c : shown) c = c >= 0x20 && c < 0x7f ? c : '?';
  return shown;
}

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
    case MessageKind::kBusy:
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
  for (int i = 0; i <= static_cast<int>(MessageKind::kBusy); ++i) {
    if (kind == KindName(static_cast<MessageKind>(i))) m.kind = static_cast<MessageKind>(i);
  }
  if (kind != KindName(m.kind)) return Protocol(line, "unknown kind");
  // Kinds whose text is the rest of the line (free words, after a sequence number for SKIP).
  if (m.kind == MessageKind::kRefuse || m.kind == MessageKind::kStop ||
      m.kind == MessageKind::kBusy) {
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
    case MessageKind::kBusy:
      break;
  }
  if (f->size() != expected) return Protocol(line, "an unknown field");
  return m;
}

void Channel::Authenticate(std::string session, Direction self) {
  session_ = std::move(session);
  authenticated_ = true;
  self_ = self;
  sent_ = received_ = 0;
}

Status Channel::Send(const Message& m, std::string_view payload, Nanos within) {
  std::string out = FormatMessage(m);
  if (authenticated()) {
    auto tag = MessageTag(session_, self_, sent_++, out, payload);
    if (!tag) return tag.error();
    out += " mac=" + *tag;
  }
  out += '\n';
  out += payload;
  if (Status st = stream_.Write(out, MonotonicNow() + within); !st) {
    return MakeError(ErrorKind::kIo, "rendezvous: " + st.error().message);
  }
  return {};
}

Result<std::optional<Message>> Channel::Take() {
  const std::string_view buf = stream_.buffer();
  const size_t nl = buf.find('\n');
  // The longest line: a message, then " mac=" and the tag.
  constexpr size_t kLongest = kMaxLine + 5 + kTagHex;
  if (nl == std::string::npos) {
    if (buf.size() > kLongest) return Protocol(buf, "no end of line within 4096 bytes");
    return std::optional<Message>();
  }
  const std::string_view line(buf.data(), nl);
  std::string_view text = line, tag;
  if (authenticated()) {
    auto split = SplitTag(line);
    if (!split) {
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous: a message without its tag on an authenticated "
                                   "connection: '{}'",
                                   Printable(line, 80)));
    }
    text = split->message;
    tag = split->tag;
  }
  auto m = ParseMessage(text);
  if (!m) return m.error();
  if (m->payload > max_payload_) {
    return Protocol(text, max_payload_ == 0 ? "shard 0 takes no payload (roots=) from a shard"
                                            : "roots= is over the most this end takes");
  }
  if (buf.size() - nl - 1 < m->payload) return std::optional<Message>();  // more to come
  const std::string_view payload = buf.substr(nl + 1, m->payload);
  if (authenticated()) {
    const Direction peer =
        self_ == Direction::kFromLeader ? Direction::kFromFollower : Direction::kFromLeader;
    auto expected = MessageTag(session_, peer, received_, text, payload);
    if (!expected) return expected.error();
    if (!SameTag(tag, *expected)) {
      return MakeError(ErrorKind::kIo,
                       fmt::format("rendezvous: message {} ('{}') fails authentication: another "
                                   "--rendezvous-key, a replayed or an altered message",
                                   received_, Printable(text, 60)));
    }
    ++received_;
  }
  m->body = std::string(payload);
  stream_.Consume(nl + 1 + m->payload);
  return std::optional<Message>(std::move(*m));
}

Result<Message> Channel::Receive(Nanos deadline) {
  for (;;) {
    auto m = Take();
    if (!m) return m.error();
    if (*m) return std::move(**m);
    auto got = stream_.Fill(deadline);
    if (!got) return MakeError(ErrorKind::kIo, "rendezvous: " + got.error().message);
    if (*got == LineStream::Filled::kTimedOut) {
      return MakeError(ErrorKind::kIo, "rendezvous: timed out waiting for a shard");
    }
    if (*got == LineStream::Filled::kClosed) {
      return MakeError(ErrorKind::kIo,
                       "rendezvous: the other shard closed the connection (did it exit? see "
                       "its output)");
    }
  }
}

Result<std::optional<Message>> Channel::TryReceive() {
  auto m = Take();
  if (!m || *m) return m;
  auto got = stream_.FillNow();
  if (!got) return got.error();
  if (*got == LineStream::Filled::kClosed) {
    return MakeError(ErrorKind::kIo, "closed the connection");
  }
  if (*got == LineStream::Filled::kTimedOut) return std::optional<Message>();
  return Take();
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

}  // namespace pqc::scenario
