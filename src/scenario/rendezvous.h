// rendezvous — how the shards of one run meet: shard 0 (the leader) listens on a small TCP
// port, the others join it there. A joining shard states who it is and what it will run (the
// plan's identity), so a shard started with another scenario, other flags or another build is
// refused before anything is measured, with what differs. Each joiner then measures its clock
// offset to the leader's (NTP's four timestamps, the round trip with the least delay kept).
// Per trial the leader announces the start instant (its wall clock), the port of the target
// it started and the roots that verify it; every shard says when its load has finished, and
// only then does the leader stop the target. One line per message, text, so that a stuck run
// can be read with `ss` and a packet capture; the parser is fuzzed (fuzz/shard_fuzz.cc).
// With a key (rendezvous_auth.h) every connection opens with a NONCE each way and every line
// after carries its tag; a connection that fails to prove the key is refused and dropped while
// the leader goes on waiting for the real shards (docs/shards.md, "Security").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "core/fd.h"
#include "core/shard.h"
#include "net/address.h"
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
  kStop
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
  std::string text;    // refuse, skip, stop: the reason (rest of the line)
  std::string body;    // trial, as received: the `payload` bytes that followed the line
};

constexpr size_t kMaxLine = 4096;
constexpr uint64_t kMaxPayload = 1 << 20;

std::string FormatMessage(const Message& m);  // without the newline
Result<Message> ParseMessage(std::string_view line);

// IsToolNetns: a path a shard may be told to enter — one of the namespaces pqc-bench makes
// (/run/netns/pqc-bench-<pid>-<n>-<role>, letters, digits and '-' only), never another.
bool IsToolNetns(std::string_view path);

// ClockOffset: leader's wall clock minus this shard's, and the round trip it was measured
// with (the offset's error is at most half of it).
struct ClockOffset {
  int64_t offset_ns = 0;
  int64_t rtt_ns = 0;
};

// Channel: one control connection, blocking reads with a deadline (CLOCK_MONOTONIC).
class Channel {
 public:
  explicit Channel(ScopedFd fd) : fd_(std::move(fd)) {}
  // Authenticate: from now on every message sent carries its tag and every message received
  // must carry a valid one (`session`: SessionKey; `self`: the side this end is).
  void Authenticate(std::string session, Direction self);
  bool authenticated() const { return !session_.empty(); }
  Status Send(const Message& m, std::string_view payload = {});
  // Receive: the next message, with its payload (TRIAL's roots) in `body`.
  Result<Message> Receive(Nanos deadline);
  // TryReceive: a message if one has arrived whole, reading what is there without waiting
  // (the leader serves several joining connections at once).
  Result<std::optional<Message>> TryReceive();
  int fd() const { return fd_.get(); }

 private:
  Result<std::optional<Message>> Take();  // a whole message from buf_, if there is one
  Status Fill(Nanos deadline);
  ScopedFd fd_;
  std::string buf_;
  std::string session_;  // empty: not authenticated
  Direction self_ = Direction::kFromLeader;
  uint64_t sent_ = 0, received_ = 0;  // message counters, in every tag
};

// TrialStart: what a follower is told for one trial.
struct TrialStart {
  uint64_t seq = 0;
  bool skip = false;  // the leader could not run the arm (text says why)
  bool end = false;   // the leader has no more trials
  bool stop = false;  // the leader stopped the study before its end (text says why)
  std::string text;
  int64_t start_at = 0;  // this shard's wall clock ns (the offset applied)
  SocketAddress target;  // the leader's host, the target's port
  std::string roots_pem;
  std::string netns;  // non-empty: load from this namespace of the leader's emulated link
};

class Leader {
 public:
  // Open: listens on `addr`, waits until every other shard of `spec` has joined with the same
  // identity (a mismatch is an error naming the shard and what differs), until `deadline`.
  // With `key`, a joiner must first prove it (a connection that does not, or says anything
  // malformed, or stays silent for 10 s, is refused, logged and dropped; the wait goes on);
  // without one, `addr` must be a loopback address.
  static Result<Leader> Open(const SocketAddress& addr, const ShardSpec& spec,
                             const PlanIdentity& identity, const RendezvousKey* key, Nanos deadline,
                             std::FILE* log);
  // Announce: trial `seq` starts at `start_at` (wall ns) on the target's `port`; `netns`, when
  // not empty, holds the namespace each shard loads from (index = shard).
  Status Announce(uint64_t seq, int64_t start_at, uint16_t port, std::string_view roots_pem,
                  const std::vector<std::string>& netns = {});
  Status Skip(uint64_t seq, std::string_view reason);
  // Finished: how the followers ended one trial.
  struct Finished {
    std::vector<uint32_t> invalid;  // said DONE with an invalid trial
    // did not say DONE by the deadline, closed the connection or broke the protocol: the
    // shard and why; it is no longer a follower (its connection is closed).
    std::vector<std::pair<uint32_t, std::string>> lost;
  };
  // WaitDone: every follower's DONE for trial `seq`, until `deadline` for all of them.
  Finished WaitDone(uint64_t seq, Nanos deadline);
  void End();
  // Stop: the study ends before its plan does (a shard was lost); the followers are told why.
  void Stop(std::string_view reason);
  size_t followers() const { return followers_.size(); }

 private:
  struct Follower {
    uint32_t shard;
    Channel channel;
  };
  std::vector<Follower> followers_;
};

class Follower {
 public:
  // Join: connects to shard 0 at `leader` (proving `key` and requiring shard 0 to prove it,
  // when given). Every target this shard is told of is loaded at `serve_host` (the port from
  // shard 0): an address this shard was given itself, never one named by shard 0.
  static Result<Follower> Join(const SocketAddress& leader, const SocketAddress& serve_host,
                               const ShardSpec& spec, const PlanIdentity& identity,
                               const RendezvousKey* key, Nanos deadline);
  Result<TrialStart> Next(Nanos deadline);
  Status Done(uint64_t seq, bool valid);
  const ClockOffset& clock() const { return clock_; }

 private:
  Follower(Channel c, SocketAddress serve_host, ShardSpec spec, ClockOffset clock)
      : channel_(std::move(c)), serve_host_(serve_host), spec_(spec), clock_(clock) {}
  Channel channel_;
  SocketAddress serve_host_;
  ShardSpec spec_;
  ClockOffset clock_;
};

// Digest: FNV-1a 64 of a text as 16 hex digits (identity, not security: a shard lies to no
// one here, it is only misconfigured).
std::string Digest(std::string_view text);

}  // namespace pqc::scenario
