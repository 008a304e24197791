#include "cli/shard_flags.h"

#include <fmt/format.h>

#include "cli/unit_flags.h"

namespace pqc::cli {

void AddShardFlags(CLI::App& app, ShardFlags& f, bool run) {
  app.add_option("--shard", f.shard,
                 "this process is shard I of N load hosts: I/N (0-based), slurm "
                 "(SLURM_PROCID/SLURM_NTASKS) or k8s/N (JOB_COMPLETION_INDEX); each shard runs "
                 "its share of the arm's rate or closed loop");
  AddDuration(app, "--start-tolerance", f.start_tolerance,
              "a shard whose load starts later than this past the agreed instant measured a "
              "different load: its trial is invalid",
              60'000'000'000);
  if (!run) {
    app.add_option("--start-at", f.start_at,
                   "start the schedule at this UTC instant (2026-12-01T23:00:00Z, or now+10s): "
                   "the start barrier of shards started separately");
    return;
  }
  app.add_option("--rendezvous", f.rendezvous,
                 "with --shard: HOST:PORT where shard 0 listens and the others join it (numeric "
                 "address); shard 0 starts each trial's target and announces its start");
  app.add_option("--rendezvous-key", f.rendezvous_key,
                 "with --rendezvous: a file of 16 to 4096 secret bytes only you can read, the "
                 "same on every shard; each shard proves it and every message is authenticated "
                 "with it (required unless the rendezvous is a loopback address)");
  app.add_option("--serve-host", f.serve_host,
                 "with --shard: the address of the targets shard 0 starts (they listen on it; "
                 "the other shards load them there) [default: the rendezvous host]");
  AddDuration(app, "--rendezvous-timeout", f.rendezvous_timeout,
              "how long the shards wait for each other at the rendezvous", 3'600'000'000'000);
}

Result<ShardSpec> ParseShardFlag(const ShardFlags& f) {
  if (f.shard.empty()) return ShardSpec{};
  return ParseShard(f.shard, ProcessEnv());
}

Result<int64_t> ParseStartAt(const ShardFlags& f) {
  if (f.start_at.empty()) return int64_t{0};
  return ParseUtcTime(f.start_at, UnixNowNs());
}

Result<std::optional<SocketAddress>> ParseRendezvous(const ShardFlags& f) {
  if (f.rendezvous.empty()) return std::optional<SocketAddress>{};
  auto a = ParseAddress(f.rendezvous);
  if (!a) {
    return MakeError(ErrorKind::kUsage, fmt::format("--rendezvous: {}", a.error().message));
  }
  if (a->port() == 0) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--rendezvous {}: give a port (every shard must name the same "
                                 "one)",
                                 f.rendezvous));
  }
  if (f.rendezvous_key.empty() && !a->IsLoopback()) {
    return scenario::KeyRequired("--rendezvous " + f.rendezvous);
  }
  return std::optional<SocketAddress>(*a);
}

Result<std::optional<scenario::RendezvousKey>> ParseRendezvousKey(const ShardFlags& f) {
  if (f.rendezvous_key.empty()) return std::optional<scenario::RendezvousKey>();
  if (f.rendezvous.empty()) {
    return MakeError(ErrorKind::kUsage,
                     "--rendezvous-key: only with --shard and --rendezvous HOST:PORT (the key "
                     "authenticates the shards to each other there)");
  }
  auto key = scenario::LoadRendezvousKey(f.rendezvous_key);
  if (!key) return key.error();
  return std::optional<scenario::RendezvousKey>(std::move(*key));
}

Result<SocketAddress> ParseServeHost(const ShardFlags& f,
                                     const std::optional<SocketAddress>& rendezvous) {
  if (f.serve_host.empty()) return rendezvous ? rendezvous->WithPort(0) : LoopbackAddress();
  auto a = ParseHost(f.serve_host);
  if (!a) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--serve-host {}: {}", f.serve_host, a.error().message));
  }
  return *a;
}

}  // namespace pqc::cli
