// rendezvous — how the shards of one run meet: shard 0 (the leader) listens on a small TCP
// port, the others join it there. A joining shard states who it is and what it will run (the
// plan's identity), so a shard started with another scenario, other flags or another build is
// refused before anything is measured, with what differs. Each joiner then measures its clock
// offset to the leader's (NTP's four timestamps, the round trip with the least delay kept).
// Per trial the leader announces the start instant (its wall clock), the port of the target
// it started and the roots that verify it; every shard says when its load has finished, and
// only then does the leader stop the target. The messages and their channel are
// rendezvous_wire.h's.
// With a key (rendezvous_auth.h) every connection opens with a NONCE each way and every line
// after carries its tag; a connection that fails to prove the key is refused and dropped while
// the leader goes on waiting for the real shards, and a flood of such connections cycles
// through a bounded gate (rendezvous_gate.h) that a follower, told BUSY, retries until its
// deadline (docs/shards.md, "Security").
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "core/shard.h"
#include "net/address.h"
#include "scenario/rendezvous_auth.h"
#include "scenario/rendezvous_wire.h"

namespace pqc::scenario {

// ClockOffset: leader's wall clock minus this shard's, and the round trip it was measured
// with (the offset's error is at most half of it).
struct ClockOffset {
  int64_t offset_ns = 0;
  int64_t rtt_ns = 0;
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
  // With `key`, a joiner must first prove it (a connection that does not within 2 s, or says
  // anything malformed, is refused, logged and dropped; the wait goes on: rendezvous_gate.h
  // bounds what strangers can hold); without one, `addr` must be a loopback address.
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

}  // namespace pqc::scenario
