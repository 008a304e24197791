#include "scenario/arm_floor.h"

#include <fmt/format.h>

#include <algorithm>

#include "records/record.h"
#include "speed/crypto_floor.h"
#include "speed/speed_output.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"

namespace pqc::scenario {
namespace {

nlohmann::json TermsJson(const speed::CryptoFloor& f) {
  nlohmann::json terms = nlohmann::json::array();
  for (const speed::FloorTerm& t : f.terms) {
    terms.push_back({{"side", t.server ? "server" : "client"},
                     {"algorithm", t.algorithm},
                     {"op", speed::SpeedOpName(t.op)},
                     {"count", t.count},
                     {"us", t.us},
                     {"why", t.why}});
  }
  return terms;
}

}  // namespace

Result<results::ArmFloor> PriceArmFloor(const speed::SpeedTable& table, const ArmSettings& s) {
  const std::vector<std::string> shares = KeyShareGroups(s);
  double total = 0;
  for (const MixWeight& w : s.mode) total += w.weight;
  if (!(total > 0))
    return MakeError(ErrorKind::kConfig, "mode " + ModeText(s.mode) + ": no weight");
  results::ArmFloor out;
  out.detail = {{"group", s.group}, {"key_shares", shares}, {"chain", s.chain.text}};
  nlohmann::json modes = nlohmann::json::array();
  for (const MixWeight& w : s.mode) {
    const bool resumed = w.mode == ConnMode::kResume || w.mode == ConnMode::kEarly;
    auto f = speed::PredictHandshakeCrypto(table, s.group, shares, s.chain, resumed);
    if (!f) return f.error();
    const double share = w.weight / total;
    out.client_us += share * f->client_us;
    out.server_us += share * f->server_us;
    modes.push_back({{"mode", ConnModeName(w.mode)},
                     {"share", share},
                     {"client_us", f->client_us},
                     {"server_us", f->server_us},
                     {"terms", TermsJson(*f)}});
  }
  out.detail["modes"] = std::move(modes);
  return out;
}

Result<RunFloors> MeasureArmFloors(const std::vector<Arm>& arms, Nanos per_op) {
  speed::SpeedOptions options;
  options.per_op = per_op;
  for (const Arm& a : arms) {
    if (!ToolRunsServer(a.settings)) continue;
    std::vector<std::string> names = KeyShareGroups(a.settings);
    names.push_back(a.settings.group);
    for (const SignatureInfo* sig : a.settings.chain.links) names.emplace_back(sig->name);
    for (std::string& n : names) {
      if (std::find(options.only.begin(), options.only.end(), n) == options.only.end()) {
        options.only.push_back(std::move(n));
      }
    }
  }
  RunFloors out;
  out.arms.resize(arms.size());
  if (options.only.empty()) return out;
  auto table = speed::MeasureSpeed(options);
  if (!table) return table.error();
  out.primitives = table->entries.size();
  out.speed = speed::SpeedJson(*table, {});
  out.speed.erase("floors");
  out.speed["budget_per_op_s"] = static_cast<double>(per_op) / 1e9;
  for (size_t i = 0; i < arms.size(); ++i) {
    if (!ToolRunsServer(arms[i].settings)) {
      out.notes.push_back(
          fmt::format("arm '{}': no crypto floor: the external server's chain "
                      "is its own",
                      arms[i].label));
      continue;
    }
    auto f = PriceArmFloor(*table, arms[i].settings);
    if (f) {
      out.arms[i] = std::move(*f);
    } else {
      out.notes.push_back(
          fmt::format("arm '{}': no crypto floor: {}", arms[i].label, f.error().message));
    }
  }
  return out;
}

}  // namespace pqc::scenario
