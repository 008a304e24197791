// shard_flags — the flags that make a process one shard of a study: `--shard I/N` (or from
// Slurm's or a Kubernetes Indexed Job's environment), and its start barrier: `--start-at` for
// `load`, a rendezvous at shard 0 for `run` (which also starts the target each trial).
// Parsed here, at the edge, into a ShardSpec and typed times.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "core/shard.h"
#include "net/address.h"
#include "scenario/rendezvous_auth.h"

namespace pqc::cli {

struct ShardFlags {
  std::string shard, start_at, rendezvous, rendezvous_key;
  std::string serve_host;  // empty: the rendezvous host (127.0.0.1 without a rendezvous)
  Nanos start_tolerance = 10'000'000;
  Nanos rendezvous_timeout = 120'000'000'000;
};

// AddShardFlags: --shard and --start-tolerance; `load` adds --start-at, `run` --rendezvous,
// --rendezvous-key, --serve-host and --rendezvous-timeout.
void AddShardFlags(CLI::App& app, ShardFlags& f, bool run);

// Shard: the parsed --shard (0/1 when not given).
Result<ShardSpec> ParseShardFlag(const ShardFlags& f);
// StartAt: the parsed --start-at as UTC ns, 0 when not given.
Result<int64_t> ParseStartAt(const ShardFlags& f);
// Rendezvous: the parsed --rendezvous (numeric HOST:PORT; names are not resolved), if given.
// Without --rendezvous-key it must be a loopback address (a rendezvous on a network needs
// the key: docs/shards.md, "Security").
Result<std::optional<SocketAddress>> ParseRendezvous(const ShardFlags& f);
// RendezvousKey: the key file's contents (LoadRendezvousKey's checks), if --rendezvous-key.
Result<std::optional<scenario::RendezvousKey>> ParseRendezvousKey(const ShardFlags& f);
// ServeHost: --serve-host, or the host of the parsed --rendezvous, or 127.0.0.1, with port 0:
// where shard 0's targets listen and a follower loads them.
Result<SocketAddress> ParseServeHost(const ShardFlags& f,
                                     const std::optional<SocketAddress>& rendezvous);

}  // namespace pqc::cli
