// rendezvous_gate — shard 0's door: the connections that have not joined yet, served one
// handshake step at a time (rendezvous.h says who says what). Shard 0's port may face a whole
// cluster network, and a stranger who reaches it can open connections and say nothing, or
// anything. The gate holds each connection to a budget so that the real shards still get in
// (docs/shards.md, "Security"):
// - an unproven connection (no HELLO yet; with a key, only a holder of the key can send one
//   that shard 0 reads) has 2 s from its accept to prove itself: a real shard needs a few
//   round trips;
// - at most 4 unproven connections from one source (an IPv4 address, an IPv6 /64) and 256 in
//   all: past the first limit a newcomer is told BUSY; past the second it displaces the oldest
//   connection of the source that holds the most, if that holds more than the newcomer's would
//   (so strangers at a few addresses cannot crowd out a shard at another, and it takes 64
//   addresses holding 4 each to fill the gate); a follower told BUSY tries again until its
//   deadline (rendezvous_follower.cc);
// - a proven joiner has 10 s in all for its clock rounds and READY, and at most 32 PINGs;
// - at most 4 messages per connection per wake-up, so one that streams starves no one;
// - no payload is read from a joiner (Channel's `max_payload` 0): a line is at most 4 KiB.
// Every refusal is logged with printable text only, each address's first ones in full, then at
// powers of two; Summary() counts them all.
#pragma once

#include <poll.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "core/fd.h"
#include "core/shard.h"
#include "net/address.h"
#include "scenario/rendezvous_auth.h"
#include "scenario/rendezvous_wire.h"

namespace pqc::scenario {

struct GateLimits {
  size_t max_unproven = 256;
  size_t max_per_source = 4;
  Nanos prove_time = 2'000'000'000;
  Nanos join_time = 10'000'000'000;
  uint32_t max_pings = 32;  // a real shard sends 8
  int messages_per_wake = 4;
};

class JoinGate {
 public:
  struct Joined {
    uint32_t shard;
    Channel channel;
  };

  // `key`: null for a rendezvous without one (loopback only: any local process may join).
  JoinGate(const ShardSpec& spec, const PlanIdentity& identity, const RendezvousKey* key,
           std::FILE* log, GateLimits limits = {});

  // Add: a connection just accepted from `from` (it may displace an older unproven one).
  void Add(ScopedFd fd, const SocketAddress& from);
  // Watch: the descriptors to poll (appended to `fds`) and the earliest instant a joiner's
  // time runs out (`wake` lowered to it).
  void Watch(std::vector<pollfd>& fds, Nanos& wake) const;
  // Serve: what each connection has sent, handled; joiners past their time refused. An error
  // only for a shard that proved itself and would run something else (a misconfigured study:
  // waiting would only end in a timeout).
  Status Serve();
  // TakeJoined: the shards that have joined since the last call.
  std::vector<Joined> TakeJoined();

  bool has_joined(uint32_t shard) const { return joined_[shard]; }
  size_t joining() const { return joiners_.size(); }
  // Summary: "refused 130 connections from 64 addresses" ("" when none was refused).
  std::string Summary() const;

 private:
  enum class Step { kNonce, kHello, kClock };
  struct Joiner {
    Channel channel;
    std::string source;  // the peer's address without its port, or its /64 (per-source limit)
    std::string from;    // with it, for the log
    Nanos accepted = 0;
    Step step = Step::kHello;
    bool proven = false;
    bool done = false;  // joined or refused: removed at the end of Serve
    uint32_t who = 0;
    uint32_t pings = 0;
  };
  enum class Outcome { kGoOn, kJoined, kDrop };

  Result<Outcome> Admit(Joiner& j, const Message& m, std::string& why);
  void Refuse(Joiner& j, MessageKind kind, std::string_view why);
  void Log(std::string_view line);

  ShardSpec spec_;
  PlanIdentity identity_;
  const RendezvousKey* key_;
  std::FILE* log_;
  GateLimits limits_;
  std::vector<bool> joined_;
  std::vector<Joiner> joiners_;  // oldest first
  std::vector<Joined> ready_;
  std::map<std::string, uint64_t> refusals_;  // per source address (at most kMaxSources)
  uint64_t refused_ = 0;
};

}  // namespace pqc::scenario
