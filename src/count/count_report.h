// count_report — what one `pqc-bench count` found, as the record every reader takes: per side
// (client, server) the instructions per handshake of every repetition, stage by stage, beside
// the crypto floor counted alone. Written as count.json (count_report_json.h), read back by
// `compare` and `report`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "count/stage_table.h"

namespace pqc::count {

struct StageResult {
  Stage stage = Stage::kRest;
  std::vector<double> per_handshake;  // instructions, one per repetition
  // syscalls: per handshake, mean over the repetitions — those this stage's code made (their
  // wrappers' instructions are the kernel row's); on the kernel row, all of them.
  double syscalls = 0;
  std::optional<double> floor;  // instructions of its primitives called alone, per handshake
};

struct SideResult {
  std::string side;                 // "client", "server"
  std::vector<double> total;        // instructions per handshake, one per repetition
  std::vector<StageResult> stages;  // Stages() order
  double ambiguous_share = 0;       // of the total, the largest over the repetitions
  // cpu_us: the same arm run natively, CPU per handshake (user + system) as `run` reports it —
  // the time beside the count; none when count was asked not to time it.
  std::optional<double> cpu_us;
  const StageResult* Find(Stage s) const;
};

struct FloorOp {
  std::string algorithm;    // X25519MLKEM768, ml-dsa-65
  std::string op;           // keygen, encaps, decaps, derive, sign, verify
  double instructions = 0;  // per call
  uint64_t calls = 0;
};

struct CountReport {
  std::string arm;      // "X25519MLKEM768:ml-dsa-65 fresh h1"
  std::string openssl;  // OpenSSL's version text
  uint32_t handshakes = 0, warmup = 0, floor_calls = 0;
  std::vector<SideResult> sides;  // client, server
  std::vector<FloorOp> floor_ops;
  std::vector<double> wall_s;  // per repetition
  // The native timing: its measured connections and the client's handshake median (loopback).
  uint64_t native_connections = 0;
  std::optional<double> handshake_p50_us;
  std::string dir;  // the callgrind files
  const SideResult* Side(std::string_view name) const;
};

// Mean, and Spread: (max - min) / mean over the repetitions (0 for one).
double Mean(const std::vector<double>& v);
double Spread(const std::vector<double>& v);

}  // namespace pqc::count
