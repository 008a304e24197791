// count_floor — the crypto floor of `pqc-bench count`, counted: the public-key operations an
// arm's handshake cannot avoid (speed/crypto_floor.h's model), each called alone a fixed number
// of times inside a callgrind window of its own, through the same EVP calls speed times. The
// parent reads one dump per operation, in the order the child names them on stdout.
#include <fmt/core.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cli/command.h"
#include "cli/count_run.h"
#include "core/child_process.h"
#include "core/instruction_window.h"
#include "count/callgrind_profile.h"

namespace pqc::cli {

speed::FloorArm FloorArmOf(const scenario::ArmSettings& s) {
  speed::FloorArm a;
  a.group = s.group;
  a.key_shares = s.key_shares;
  a.chain = s.chain;
  a.resumed = s.mode.front().mode != ConnMode::kFresh;
  a.text = fmt::format("{}:{}{}", a.group, a.chain.text, a.resumed ? ":resume" : "");
  return a;
}

int CountFloorChild(const scenario::ArmSettings& s, const CountFlags& f) {
  speed::SpeedOptions o;
  o.only = speed::AlgorithmsFor(FloorArmOf(s));
  o.signature_keygen = false;
  o.meter = [&f](std::string_view algorithm, speed::SpeedOp op,
                 const std::function<Status()>& call) -> Result<speed::SpeedEntry> {
    // One call outside the window: the first fetches the algorithm and fills caches that a
    // server's thousandth handshake finds warm.
    if (Status st = call(); !st) return st.error();
    ZeroInstructionCounts();
    for (uint32_t i = 0; i < f.floor_calls; ++i) {
      if (Status st = call(); !st) return st.error();
    }
    DumpInstructionCounts(fmt::format("{} {}", algorithm, speed::SpeedOpName(op)));
    fmt::print("floor {} {}\n", algorithm, speed::SpeedOpName(op));
    std::fflush(stdout);
    speed::SpeedEntry e;
    e.iterations = f.floor_calls;
    return e;
  };
  auto table = speed::MeasureSpeed(o);
  if (!table) return ReportError("count", table.error());
  return kExitOk;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(ErrorKind::kIo, fmt::format("cannot read {}", path));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

namespace {

Result<speed::SpeedOp> OpNamed(std::string_view name) {
  for (speed::SpeedOp op :
       {speed::SpeedOp::kKeygen, speed::SpeedOp::kEncaps, speed::SpeedOp::kDecaps,
        speed::SpeedOp::kDerive, speed::SpeedOp::kSign, speed::SpeedOp::kVerify}) {
    if (speed::SpeedOpName(op) == name) return op;
  }
  return MakeError(ErrorKind::kSystem, fmt::format("floor: unknown operation '{}'", name));
}

}  // namespace

Result<speed::SpeedTable> CountFloor(const CountSetup& setup, uint32_t calls) {
  const std::string out = setup.dir + "/floor.out";
  const std::string names = setup.dir + "/floor.txt";
  SpawnOptions o;
  o.argv = ValgrindArgv(out, setup.dir + "/floor.valgrind.log");
  o.argv.insert(o.argv.end(), {setup.exe, "count"});
  o.argv.insert(o.argv.end(), setup.client_args.begin(), setup.client_args.end());
  o.argv.insert(o.argv.end(), {"--floor-child", "--floor-calls", std::to_string(calls)});
  o.output_path = names;
  auto child = ChildProcess::Spawn(o);
  if (!child) return child.error();
  auto exit = child->WaitExit(600 * kSecond);
  if (!exit) return exit.error();
  auto listed = ReadWholeFile(names);
  if (!listed) return listed.error();
  if (exit->ShellCode() != 0) {
    return MakeError(ErrorKind::kSystem, fmt::format("counting the floor's primitives alone "
                                                     "failed ({}):\n{}",
                                                     exit->Describe(), *listed));
  }
  speed::SpeedTable table;
  std::istringstream lines(*listed);
  std::string line;
  int part = 0;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string tag, algorithm, op_name;
    if (!(words >> tag >> algorithm >> op_name) || tag != "floor") continue;
    auto op = OpNamed(op_name);
    if (!op) return op.error();
    const std::string path = fmt::format("{}.{}", out, ++part);
    auto text = ReadWholeFile(path);
    if (!text) return text.error();
    auto profile = count::ParseCallgrind(*text, path);
    if (!profile) return profile.error();
    speed::SpeedEntry e;
    e.algorithm = algorithm;
    e.op = *op;
    e.iterations = calls;
    // Instructions per call, in the field the floor model prices with (see count_run.h).
    e.us_per_op = static_cast<double>(profile->totals.ir) / calls;
    table.entries.push_back(std::move(e));
  }
  if (part == 0) return MakeError(ErrorKind::kSystem, "the floor's child counted nothing");
  return table;
}

}  // namespace pqc::cli
