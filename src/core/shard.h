// shard — which share of a run this process measures: shard `index` of `count` load hosts.
// Parsed once at the edge from `--shard I/N`, or from the environment of the scheduler that
// started the process (Slurm's SLURM_PROCID/SLURM_NTASKS, a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX with the count given), and from `--start-at` (an absolute UTC time).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace pqc {

struct ShardSpec {
  uint32_t index = 0;  // 0-based; shard 0 leads (rendezvous, target)
  uint32_t count = 1;
  bool sharded() const { return count > 1; }
  bool leader() const { return index == 0; }
  std::string Label() const;  // "1/3"
};

// The environment as a function, so that parsing is pure (tests and the fuzz target give
// their own); nullopt = unset.
using EnvLookup = std::function<std::optional<std::string>(const char*)>;
EnvLookup ProcessEnv();

// ParseShard: "I/N" (0 <= I < N <= 4096), "slurm" (SLURM_PROCID / SLURM_NTASKS) or "k8s/N"
// (JOB_COMPLETION_INDEX / N). Errors name the text or the variable and what would be valid.
Result<ShardSpec> ParseShard(std::string_view text, const EnvLookup& env);

// ParseUtcTime: "2026-12-01T23:00:00Z" or with a fraction ("…:00.250Z"), also "now+5s"
// (a duration from now, for scripts that start every shard with one command). Returns
// nanoseconds since the Unix epoch.
Result<int64_t> ParseUtcTime(std::string_view text, int64_t now_unix_ns);

}  // namespace pqc
