#include "speed/speed_output.h"

#include <fmt/core.h>
#include <openssl/crypto.h>

namespace pqc::speed {

void PrintSpeedTable(std::FILE* out, const SpeedTable& table) {
  fmt::print(out, "{} — CPU µs per operation (median of batches), this process, one thread\n\n",
             OpenSSL_version(OPENSSL_VERSION));
  fmt::print(out, "{:<22} {:<7} {:>12} {:>12} {:>10}\n", "algorithm", "op", "us/op", "ops/s",
             "runs");
  for (const SpeedEntry& e : table.entries) {
    fmt::print(out, "{:<22} {:<7} {:>12.2f} {:>12.1f} {:>10}\n", e.algorithm, SpeedOpName(e.op),
               e.us_per_op, e.ops_per_s, e.iterations);
  }
}

void PrintFloor(std::FILE* out, const ArmFloor& f) {
  const auto& [arm, floor] = f;
  fmt::print(out, "\ncrypto floor of {} ({} handshake): client {:.1f} us, server {:.1f} us\n",
             arm.text, arm.resumed ? "resumed psk_dhe_ke" : "full", floor.client_us,
             floor.server_us);
  for (const FloorTerm& t : floor.terms) {
    fmt::print(out, "  {:<6} {:<20} {:<7} x{} {:>10.1f} us  {}\n", t.server ? "server" : "client",
               t.algorithm, SpeedOpName(t.op), t.count, t.us, t.why);
  }
}

nlohmann::json SpeedJson(const SpeedTable& table, const std::vector<ArmFloor>& floors) {
  nlohmann::json j;
  j["openssl"] = OpenSSL_version(OPENSSL_VERSION);
  j["entries"] = nlohmann::json::array();
  for (const SpeedEntry& e : table.entries) {
    j["entries"].push_back({{"algorithm", e.algorithm},
                            {"kind", e.is_group ? "group" : "signature"},
                            {"op", SpeedOpName(e.op)},
                            {"us_per_op", e.us_per_op},
                            {"ops_per_s", e.ops_per_s},
                            {"iterations", e.iterations},
                            {"batches", e.batches}});
  }
  j["floors"] = nlohmann::json::array();
  for (const auto& [arm, floor] : floors) {
    nlohmann::json terms = nlohmann::json::array();
    for (const FloorTerm& t : floor.terms) {
      terms.push_back({{"side", t.server ? "server" : "client"},
                       {"algorithm", t.algorithm},
                       {"op", SpeedOpName(t.op)},
                       {"count", t.count},
                       {"us", t.us},
                       {"why", t.why}});
    }
    j["floors"].push_back({{"arm", arm.text},
                           {"group", arm.group},
                           {"chain", arm.chain.text},
                           {"resumed", arm.resumed},
                           {"client_us", floor.client_us},
                           {"server_us", floor.server_us},
                           {"terms", terms}});
  }
  return j;
}

}  // namespace pqc::speed
