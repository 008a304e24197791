// count_native — the time beside the count: the same arm run natively (no valgrind), the
// embedded server as `run` starts it and a closed loop of one connection, so that `count` can
// say how many instructions a µs of CPU is on this machine for this arm, and `compare` what a
// difference in count should cost in time. CPU per handshake as `run` reports it: the server's
// process (rusage) over its handshakes, the client's load thread over its measured connections.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli/count_run.h"
#include "client/load_runner.h"
#include "scenario/arm_options.h"
#include "tls/cert_chain.h"

namespace pqc::cli {

Result<std::vector<X509Ptr>> ReadCountAnchors(const std::vector<std::string>& files) {
  std::vector<X509Ptr> out;
  for (const std::string& path : files) {
    auto pem = ReadWholeFile(path);
    auto certs = pem ? CertsFromPem(*pem) : Result<std::vector<X509Ptr>>(pem.error());
    if (!certs) {
      return MakeError(ErrorKind::kIo, fmt::format("--ca {}: no PEM certificate read", path));
    }
    for (X509Ptr& c : *certs) out.push_back(std::move(c));
  }
  return out;
}

Result<NativeTime> TimeNatively(const scenario::ArmSettings& s, const CountSetup& setup,
                                const target::ServerConfig& config, Nanos duration) {
  const std::string dir = setup.dir + "/native";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto server = target::MakeEmbeddedTarget(setup.exe);
  auto address = server->Start(config, target::Placement{}, dir);
  if (!address) return address.error();
  auto anchors = ReadCountAnchors(setup.ca_files);
  if (!anchors) return anchors.error();
  LoadOptions o = scenario::MakeLoadOptions(s, *address, 1);
  for (const X509Ptr& c : *anchors) o.tls.trust_anchors.push_back(c.get());
  o.closed_loop = 1;
  o.threads = 1;
  o.cpus.clear();
  o.busy_poll = false;
  o.warmup = kSecond;
  o.duration = duration;
  auto result = RunLoad(o, nullptr);
  auto stats = server->Stop();
  if (!result) return result.error();
  if (!stats) return stats.error();
  NativeTime t;
  std::vector<double> handshakes;
  for (const ConnectionRecord& r : result->connections) {
    if (!r.measured) continue;
    if (!r.ok()) {
      return MakeError(ErrorKind::kSystem,
                       fmt::format("count: a natively timed connection failed: {} {}",
                                   ErrorClassName(r.error), r.error_detail));
    }
    ++t.connections;
    handshakes.push_back(NanosToMicros(r.tls_done - r.tcp_established));
  }
  if (t.connections == 0 || !stats->handshakes || *stats->handshakes == 0) {
    return MakeError(ErrorKind::kSystem, "count: the native timing measured no handshake");
  }
  t.client_cpu_us =
      (result->cpu_user_s + result->cpu_sys_s) * 1e6 / static_cast<double>(t.connections);
  t.server_cpu_us =
      (stats->cpu_user_s + stats->cpu_sys_s) * 1e6 / static_cast<double>(*stats->handshakes);
  const auto mid = handshakes.begin() + static_cast<std::ptrdiff_t>(handshakes.size() / 2);
  std::nth_element(handshakes.begin(), mid, handshakes.end());
  t.handshake_p50_us = *mid;
  return t;
}

}  // namespace pqc::cli
