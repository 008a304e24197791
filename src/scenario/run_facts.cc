#include "scenario/run_facts.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

#include "core/build_commit.h"

namespace pqc::scenario {
namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

std::string Format(int64_t unix_ns, const char* pattern) {
  const time_t secs = static_cast<time_t>(unix_ns / 1'000'000'000);
  tm t{};
  gmtime_r(&secs, &t);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, pattern, &t);
  return std::string(buf, n);
}

}  // namespace

std::string BootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

void FillRunFacts(results::RunInfo& info) {
  info.tool_version = PQC_VERSION;
  info.git_commit = BuildCommit();
  info.openssl_version = OpenSSL_version(OPENSSL_VERSION);
  info.cpu_model = CpuModel();
  info.cores = std::thread::hardware_concurrency();
  utsname u{};
  if (uname(&u) == 0) {
    info.kernel = fmt::format("{} {}", u.sysname, u.release);
    info.hostname = u.nodename;
  }
}

std::string UtcIso(int64_t unix_ns) {
  return Format(unix_ns, "%Y-%m-%dT%H:%M:%SZ");
}
std::string UtcCompact(int64_t unix_ns) {
  return Format(unix_ns, "%Y%m%dT%H%M%SZ");
}

results::Networks NetworkFacts(const Scenario& s) {
  results::Networks out;
  for (const auto& [name, p] : s.networks) {
    results::NetworkFacts& facts = out[name];
    if (p.multi_site()) {
      // Several sites: no one RTT; each site's own, in site order (a connection's site is an
      // index into this list).
      for (const NetworkSite& site : p.sites) {
        facts.sites.push_back(
            {.name = site.name, .rtt_ms = site.rtt_ms, .describe = site.link.Describe()});
        facts.describe += fmt::format("{}{} ({})", facts.describe.empty() ? "sites " : ", ",
                                      site.name, site.link.Describe());
      }
      continue;
    }
    facts.rtt_ms = p.rtt_ms;
    facts.describe = p.emulated() ? p.link.Describe() : "loopback (no emulation)";
  }
  return out;
}

void FillStoredNetworkFacts(results::RunInfo& info) {
  if (!info.networks.empty()) return;
  ParseOptions po;
  auto s = StoredScenario(info, po);
  if (s) info.networks = NetworkFacts(*s);
}

Result<Scenario> StoredScenario(const results::RunInfo& info, ParseOptions& po) {
  po.full = info.options.full;
  po.trials = info.options.trials;
  po.overrides = info.options.set;
  po.only = info.options.only;
  po.stop = info.options.stop;
  po.builds = info.options.builds;
  return ParseScenarioText(info.scenario_text, info.scenario_file, po);
}

}  // namespace pqc::scenario
