// rendezvous_wire — what the shards of a run say to each other at the rendezvous: one line of
// text per message ("TRIAL seq=3 start=… port=… roots=…", then the roots' bytes), so that a
// stuck run can be read with `ss` and a packet capture; the parser is fuzzed
// (fuzz/shard_fuzz.cc). A Channel carries them over one TCP connection (net/line_stream.h),
// with a deadline per read and, once authenticated (rendezvous_auth.h), a tag on every line.
// Who says what when is rendezvous.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/error.h"
#include "core/fd.h"
#include "core/shard.h"
#include "net/line_stream.h"
#include "scenario/rendezvous_auth.h"

namespace pqc::scenario {

// PlanIdentity: what must be equal on every shard of a run.
struct PlanIdentity {
  std::string version;   // the tool's version and commit
  std::string scenario;  // digest of the scenario text
  std::string options;   // digest of the run's options (full, --set, --only, trials)
  std::string plan;      // digest of the arms' settings and the trial order
};

enum class MessageKind : uint8_t {
  kNonce,
  kHello,
  kWelcome,
  kRefuse,
  kPing,
  kPong,
  kReady,
  kTrial,
  kSkip,
  kDone,
  kEnd,
  kStop,
  kBusy,  // shard 0 cannot take this connection now (its joining connections are full)
};

// Message: one line. Which fields are set depends on the kind (see FormatMessage).
struct Message {
  MessageKind kind = MessageKind::kEnd;
  std::string nonce;       // nonce: 32 hex digits
  ShardSpec shard;         // hello, done
  PlanIdentity identity;   // hello
  uint64_t seq = 0;        // trial, skip, done
  int64_t t0 = 0, t1 = 0;  // ping (t0), pong (t0, t1): wall clock ns
  int64_t start_at = 0;    // trial: the leader's wall clock ns
  uint16_t port = 0;       // trial: the target's port on the leader's serve host
  uint64_t payload = 0;    // trial: bytes of PEM roots that follow the line
  // trial, optional: the network namespace (made by shard 0 on this machine: one of
  // /run/netns/pqc-bench-…) the receiving shard loads from, the target then at the emulated
  // link's server address.
  std::string netns;
  bool valid = false;  // done
  std::string text;    // refuse, busy, skip, stop: the reason (rest of the line)
  std::string body;    // trial, as received: the `payload` bytes that followed the line
};

constexpr size_t kMaxLine = 4096;
constexpr uint64_t kMaxPayload = 1 << 20;
// kSendTime: how long a message may wait for the peer to read (the roots of a trial, 1 MiB at
// most, on a cluster network); a peer that stops reading is then lost, not waited for.
constexpr Nanos kSendTime = 30'000'000'000;

// Printable: what another process sent, fit for a log or a terminal: at most `max` bytes, each
// outside printable ASCII shown as '?' (no escape sequence of a stranger's reaches a terminal).
std::string Printable(std::string_view text, size_t max = 200);

std::string FormatMessage(const Message& m);  // without the newline
Result<Message> ParseMessage(std::string_view line);

// IsToolNetns: a path a shard may be told to enter — one of the namespaces pqc-bench makes
// (/run/netns/pqc-bench-<pid>-<n>-<role>, letters, digits and '-' only), never another.
bool IsToolNetns(std::string_view path);

// Channel: one control connection, blocking reads with a deadline (CLOCK_MONOTONIC).
class Channel {
 public:
  // `max_payload`: the most bytes a received message may announce after its line — shard 0's
  // channels take none (no joiner or follower ever sends one, so a stranger's TRIAL line does
  // not make shard 0 wait for a megabyte), a follower's up to kMaxPayload (the roots).
  Channel(ScopedFd fd, uint64_t max_payload) : stream_(std::move(fd)), max_payload_(max_payload) {}
  // Authenticate: from now on every message sent carries its tag and every message received
  // must carry a valid one (`session`: SessionKey; `self`: the side this end is).
  void Authenticate(std::string session, Direction self);
  bool authenticated() const { return authenticated_; }
  // Send: one message and its payload, within `within` of now (an error after: the peer does
  // not read).
  Status Send(const Message& m, std::string_view payload = {}, Nanos within = kSendTime);
  // Receive: the next message, with its payload (TRIAL's roots) in `body`.
  Result<Message> Receive(Nanos deadline);
  // TryReceive: a message if one has arrived whole, reading what is there without waiting
  // (the leader serves several joining connections at once).
  Result<std::optional<Message>> TryReceive();
  int fd() const { return stream_.fd(); }

 private:
  Result<std::optional<Message>> Take();  // a whole message from the stream, if there is one
  LineStream stream_;
  uint64_t max_payload_ = 0;
  bool authenticated_ = false;
  std::string session_;
  Direction self_ = Direction::kFromLeader;
  uint64_t sent_ = 0, received_ = 0;  // message counters, in every tag
};

// Digest: FNV-1a 64 of a text as 16 hex digits (identity, not security: a shard lies to no
// one here, it is only misconfigured).
std::string Digest(std::string_view text);

}  // namespace pqc::scenario
