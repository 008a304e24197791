// speed — `pqc-bench speed`: what each primitive costs here and the crypto floor of an arm's
// handshake. Flag wiring; the measurement and the model are src/speed.
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>

#include "cli/command.h"
#include "cli/provider_flags.h"
#include "cli/unit_flags.h"
#include "speed/crypto_floor.h"
#include "speed/speed_output.h"
#include "speed/speed_table.h"

namespace pqc::cli {

int SpeedMain(int argc, char** argv) {
  CLI::App app{
      "Cost of each key exchange and signature operation on this machine (EVP, this process), "
      "and the predicted crypto CPU per handshake of an arm (--arm).",
      "pqc-bench speed"};
  std::vector<std::string> only, arms;
  speed::SpeedOptions options;
  options.per_op = 200'000'000;
  bool json = false;
  app.add_option("--only", only, "groups and signature types to measure (default: all)")
      ->delimiter(',');
  AddDuration(app, "--seconds", options.per_op, "time budget per operation (e.g. 0.2s, 1s)",
              60'000'000'000);
  app.add_option("--arm", arms,
                 "GROUP:CHAIN[:resume] whose crypto floor to print, e.g. "
                 "X25519MLKEM768:ml-dsa-65/ml-dsa-87 (measures only what it needs unless --only)");
  app.add_flag("--json", json, "JSON on stdout instead of the table");
  ProviderFlags providers;
  AddProviderFlags(app, providers);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (Status st = LoadProviders(providers); !st) return ReportError("speed", st.error());

  options.only = only;
  std::vector<speed::FloorArm> parsed;
  for (const std::string& text : arms) {
    auto arm = speed::ParseFloorArm(text);
    if (!arm) return ReportError("speed", arm.error());
    if (only.empty()) {
      for (std::string& name : speed::AlgorithmsFor(*arm)) {
        if (std::find(options.only.begin(), options.only.end(), name) == options.only.end()) {
          options.only.push_back(std::move(name));
        }
      }
    }
    parsed.push_back(std::move(*arm));
  }
  auto table = speed::MeasureSpeed(options);
  if (!table) return ReportError("speed", table.error());
  std::vector<speed::ArmFloor> floors;
  for (speed::FloorArm& arm : parsed) {
    auto floor =
        speed::PredictHandshakeCrypto(*table, arm.group, arm.key_shares, arm.chain, arm.resumed);
    if (!floor) return ReportError("speed", floor.error());
    floors.emplace_back(std::move(arm), std::move(*floor));
  }
  if (json) {
    fmt::print("{}\n", speed::SpeedJson(*table, floors).dump(2));
    return kExitOk;
  }
  speed::PrintSpeedTable(stdout, *table);
  for (const speed::ArmFloor& f : floors) speed::PrintFloor(stdout, f);
  return kExitOk;
}

}  // namespace pqc::cli
