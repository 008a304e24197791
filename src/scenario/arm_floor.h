// arm_floor — each arm's crypto floor (speed/crypto_floor.h), priced at the start of a run
// from primitives measured then, on this machine, by this OpenSSL: the report puts measured
// CPU per handshake next to it, and a floor measured elsewhere or earlier would not compare.
// The measurement is short (only the algorithms the arms use, a small budget per operation)
// and done once for all arms.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "results/run_writer.h"
#include "scenario/plan.h"
#include "speed/speed_table.h"

namespace pqc::scenario {

// kFloorBudgetPerOp: CPU time per operation for the run's speed measurement (5 batches of
// 10 ms): enough for a median within a few per cent for every ML-KEM/ML-DSA/ECDSA operation.
inline constexpr Nanos kFloorBudgetPerOp = 50'000'000;

// PriceArmFloor: the floor of one arm from a measured table. The client's key shares are the
// arm's key_shares, else the first group it offers; a HelloRetryRequest (the negotiated group
// had no share) costs the client one more keygen, as the model says. Mode: fresh and reuse
// are full handshakes, resume is psk_dhe_ke (key exchange only), a mix is the weighted mean.
Result<results::ArmFloor> PriceArmFloor(const speed::SpeedTable& table, const ArmSettings& s);

struct RunFloors {
  nlohmann::json speed;   // SpeedJson of the table (no floors): stored, not read back
  size_t primitives = 0;  // the table's entries: the operations measured
  std::vector<std::optional<results::ArmFloor>> arms;  // parallel to the plan's arms
  std::vector<std::string> notes;                      // arms that could not be priced, and why
};

// MeasureArmFloors: measures the primitives the arms need (signature types TLS cannot serve,
// such as SLH-DSA, are measured too: their arms fail later, but their floor is still a fact)
// and prices every arm. An arm that cannot be priced gets no floor and a note; only a failure
// of the measurement itself is an error.
Result<RunFloors> MeasureArmFloors(const std::vector<Arm>& arms, Nanos per_op = kFloorBudgetPerOp);

}  // namespace pqc::scenario
