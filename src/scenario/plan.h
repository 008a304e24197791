// plan — a scenario turned into what will run: the arms (the matrix's product, each with its
// settings resolved and checked) and the trials in interleaved, seeded random block order.
// Interleaving is the defence against drift: a machine that warms up, throttles or gets a
// noisy neighbour halfway through affects every arm alike instead of the arms run last.
// The order is a pure function of the seed, so `run --resume` rebuilds the same plan.
// Drift is also why the arms one question compares can run next to each other in a block (the
// adjacent factor): on a busy machine, trials shared more of its moment the closer they ran; on
// a quiet one the order made no measurable difference (docs/methodology.md, "Why trials
// disagree").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario.h"

namespace pqc::scenario {

struct Arm {
  uint32_t id = 0;    // 1-based, matrix order (first factor varies slowest)
  std::string label;  // the varying factors' values joined by " · " ("X25519MLKEM768 · resume")
  std::vector<std::pair<std::string, std::string>> factors;  // every factor → value label
  ArmSettings settings;
};

struct PlannedTrial {
  uint32_t arm = 0;    // Arm::id
  uint32_t block = 0;  // 0-based; every arm runs once per block
  uint32_t seq = 0;    // 0-based position in the whole run
};

struct Plan {
  std::vector<Arm> arms;
  std::vector<PlannedTrial> trials;
  std::string adjacent;  // the factor whose arms run next to each other (AdjacentFactor)
};

// ExpandArms: the matrix's product with settings layered (base, then each factor's value in
// factor order) and validated. An empty matrix gives one arm named "base".
Result<std::vector<Arm>> ExpandArms(const Scenario& scenario);

// BlockOrder: a permutation of 0..n-1 for block `block`, from SplitMix64 and Fisher–Yates
// written here (std::shuffle's output differs between standard libraries, and a stored run
// must replay the same order anywhere).
std::vector<uint32_t> BlockOrder(uint32_t n, uint64_t seed, uint32_t block);

// AdjacentFactor: the factor whose arms run next to each other in every block — [trials]
// adjacent; else the one factor a [stop] asks about; else the build factor (builds compared
// back to back, as a pair); else none (""): every block a full shuffle. A factor with one value
// left (run --only) is none.
std::string AdjacentFactor(const Scenario& scenario);

// BlockOrder (grouped): indexes into `arms` for block `block`. With `adjacent` a factor, the
// arms that differ in it alone form a group; the groups' order and each group's own order are
// shuffled, and a group's arms run one after another. Without one, BlockOrder(n, …) above.
std::vector<uint32_t> BlockOrder(const std::vector<Arm>& arms, const std::string& adjacent,
                                 uint64_t seed, uint32_t block);

Result<Plan> MakePlan(const Scenario& scenario);

}  // namespace pqc::scenario
