// count_run — the parts of `pqc-bench count` (instructions per handshake, stage by stage): its
// flags and arm (count.cc), the client it runs under callgrind (count_client.cc), the crypto
// floor counted alone (count_floor.cc), one repetition with both sides (count_session.cc) and
// the tables and JSON (count_output.cc). What it measures: docs/cli.md, "Instructions per
// handshake".
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/provider_flags.h"
#include "cli/unit_flags.h"
#include "count/stage_attribution.h"
#include "scenario/arm_settings.h"
#include "speed/crypto_floor.h"
#include "target/target.h"
#include "tls/ossl_ptr.h"

namespace pqc::cli {

struct CountFlags {
  // The arm: a few flags of its own, any setting key with --set.
  std::string group, client_groups, key_shares, chain, sigalgs, mode, protocol, payload;
  std::vector<std::string> sets;
  ProviderFlags providers;
  uint32_t handshakes = 200;  // measured, per repetition
  uint32_t warmup = 10;       // connections before the window (tickets for resume)
  uint32_t floor_calls = 20;  // calls of each primitive in the floor's windows
  int repeat = 3;
  Nanos time = 3 * kSecond;  // the native timing's measured phase; 0: none
  std::string out_dir, json_path;
  // Internal: the processes count starts under callgrind (not in --help).
  std::string client_of;        // ADDR: be the client of the server there
  std::vector<std::string> ca;  // the client's trust anchors (PEM files)
  bool floor_child = false;     // count the floor's primitives
};

void AddCountFlags(CLI::App& app, CountFlags& f);

// CountArm: the arm the flags describe, validated (count's own limits included).
Result<scenario::ArmSettings> CountArm(const CountFlags& f);

// The two processes count runs under callgrind; each returns its exit status.
int CountClientChild(const scenario::ArmSettings& arm, const CountFlags& f);
int CountFloorChild(const scenario::ArmSettings& arm, const CountFlags& f);

// FloorArm: the arm as the crypto floor model takes it.
speed::FloorArm FloorArmOf(const scenario::ArmSettings& arm);

// One side's count of one repetition: its window attributed to stages, per handshake later.
struct SideCount {
  count::Attribution attribution;
  std::string dump_path;
};

struct Repetition {
  SideCount client, server;
  double wall_s = 0;
};

struct CountSetup {
  std::string exe;                       // this binary, canonical (valgrind runs it)
  std::vector<std::string> client_args;  // the arm's flags, for the client child
  std::vector<std::string> serve_argv;   // `serve` for the arm, without the valgrind prefix
  std::vector<std::string> ca_files;     // the roots the client trusts
  std::string dir;                       // where callgrind writes
  uint32_t warmup = 0, handshakes = 0;
};

// CountOnce: repetition `index`: the server and the client under callgrind, the window opened
// after the warm-up and closed after the measured connections, both dumps attributed.
Result<Repetition> CountOnce(const CountSetup& setup, int index);

// CountFloor: the floor's primitives counted alone under callgrind: instructions per call,
// as a SpeedTable whose us_per_op holds instructions (priced by speed's floor model).
Result<speed::SpeedTable> CountFloor(const CountSetup& setup, uint32_t calls);

// NativeTime: the arm without valgrind (count_native.cc): CPU per handshake as `run` reports it.
struct NativeTime {
  double client_cpu_us = 0, server_cpu_us = 0;  // user + system, per handshake
  double handshake_p50_us = 0;                  // the client's, loopback, closed loop of one
  uint64_t connections = 0;
};
Result<NativeTime> TimeNatively(const scenario::ArmSettings& arm, const CountSetup& setup,
                                const target::ServerConfig& config, Nanos duration);

// ReadWholeFile: a file's bytes (count's own files: dumps, lists, count.json, PEM roots).
Result<std::string> ReadWholeFile(const std::string& path);

// ReadCountAnchors: the roots of the PEM files (the chains' roots count wrote).
Result<std::vector<X509Ptr>> ReadCountAnchors(const std::vector<std::string>& files);

// ValgrindArgv: valgrind running callgrind with the events count reads, writing `out`.
std::vector<std::string> ValgrindArgv(const std::string& out, const std::string& log);

}  // namespace pqc::cli
