// speed_output — the speed table and crypto floors as a terminal table or JSON. No arithmetic
// beyond formatting: the numbers come from speed_table and crypto_floor.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "speed/crypto_floor.h"
#include "speed/speed_table.h"

namespace pqc::speed {

using ArmFloor = std::pair<FloorArm, CryptoFloor>;

// PrintSpeedTable: one row per algorithm and operation: µs/op, ops/s, iterations.
void PrintSpeedTable(std::FILE* out, const SpeedTable& table);
// PrintFloor: the arm's client and server µs, then each term of the model.
void PrintFloor(std::FILE* out, const ArmFloor& floor);
// SpeedJson: {"openssl", "entries": [{algorithm, kind, op, us_per_op, ops_per_s, iterations,
// batches}], "floors": [{arm, group, chain, resumed, client_us, server_us, terms: [...]}]}.
nlohmann::json SpeedJson(const SpeedTable& table, const std::vector<ArmFloor>& floors);

}  // namespace pqc::speed
