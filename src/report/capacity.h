// capacity — "how many more machines do I need": per arm, the server's CPU per handshake and
// its inverse, handshakes per second per server core, and how much more CPU per handshake an
// arm costs than the classical arm of the same server. The server's CPU comes from its own
// accounting (wait4 rusage of the target process and its workers), over the whole trial, so
// there is exactly one value per trial: every interval here is over trials (Student t), never
// over connections, whose count says nothing about how the next trial would come out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/summary.h"

namespace pqc::report {

struct CapacityTrial {
  uint32_t block = 0;
  double server_cpu_s = 0;         // user + sys of the server process tree
  uint64_t server_handshakes = 0;  // handshakes it completed (warm-up included, like its CPU)
  double server_wall_s = 0;        // how long the server ran (0 = unknown)
};

struct CapacityArm {
  uint32_t id = 0;
  std::string label;
  std::string target;  // embedded | nginx | haproxy | external
  std::string group, chain;
  // The arm's other settings (load shape, mode, payload, network, server options: all but
  // the groups, key shares and chain), which its baseline must share.
  std::vector<std::pair<std::string, std::string>> other_factors;
  bool failed = false;
  bool from_invalid = false;
  std::vector<CapacityTrial> trials;  // the trials its statistics use
  std::optional<double> floor_server_us;
};

// IsClassical: a group without ML-KEM and a chain of classical signatures only.
bool IsClassical(const std::string& group, const std::string& chain);

// BaselineOf: the index of arm i's classical baseline — the first arm (in order) with the
// same target and the same other settings whose group and chain are classical — or nullopt
// (none, or arm i is its own baseline).
std::optional<size_t> BaselineOf(const std::vector<CapacityArm>& arms, size_t i);

// CapacityOf: the summary's "capacity": per arm that ran, server CPU per handshake over
// trials, handshakes/s per core, server busy (CPU s / wall s of the server: 1.0 = one core
// saturated), the floor ratio and the increase over its classical baseline.
CapacitySummary CapacityOf(const std::vector<CapacityArm>& arms, double confidence);

}  // namespace pqc::report
