#include "report/arm_samples.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>

namespace pqc::report {
namespace {

Status LoadArm(results::Db& db, ArmData& a, const LoadedTrials* loaded) {
  std::array<TrialSamples, kAllPhases.size()> samples;
  const bool busy_poll = a.arm->view.busy_poll;
  for (const results::StoredTrial* t : a.used) {
    std::optional<results::TrialRecords> read;
    const LoadResult* load = nullptr;
    if (auto it = loaded != nullptr ? loaded->find(t->id) : LoadedTrials::const_iterator();
        loaded != nullptr && it != loaded->end()) {
      load = it->second;
    } else {
      auto rec = results::ReadTrialRecords(db, t->id);
      if (!rec) return rec.error();
      load = &read.emplace(std::move(*rec)).load;
    }
    PhaseSamples ps = MeasuredPhaseSamples(*load);
    for (size_t p = 0; p < ps.size(); ++p) samples[p].push_back(std::move(ps[p]));
    uint64_t connections = 0;
    for (const ConnectionRecord& c : load->connections) {
      if (!c.measured) continue;
      ++connections;
      if (!c.ok()) ++a.errors;
      if (c.tls_done != 0) a.bytes.Add(c);
      if (!a.split_sites) continue;
      if (a.sites.size() <= c.site) a.sites.resize(size_t{c.site} + 1);
      SiteData& site = a.sites[c.site];
      ++site.connections;
      if (!c.ok()) ++site.errors;
      AddPhaseSamples(c, load->requests, site.samples);
    }
    a.connections += connections;
    a.client_cpu_s += t->client_cpu_s;
    a.client_us_per_connection.push_back(
        connections > 0 && !busy_poll ? t->client_cpu_s * 1e6 / static_cast<double>(connections)
                                      : NAN);
    if (t->server_cpu_s && t->server_handshakes) {
      a.server_cpu_s += *t->server_cpu_s;
      a.server_handshakes += *t->server_handshakes;
    }
    a.server_us_per_handshake.push_back(
        t->server_cpu_s && t->server_handshakes && *t->server_handshakes > 0
            ? *t->server_cpu_s * 1e6 / static_cast<double>(*t->server_handshakes)
            : NAN);
  }
  for (size_t p = 0; p < samples.size(); ++p) {
    size_t n = 0;
    for (const auto& v : samples[p]) n += v.size();
    if (n > 0) a.phases[p] = std::make_unique<PooledSamples>(samples[p]);
  }
  return {};
}

}  // namespace

Result<std::vector<ArmData>> PoolArms(results::Db& db, const results::StoredRun& run,
                                      const LoadedTrials* loaded) {
  std::vector<ArmData> arms(run.arms.size());
  std::map<uint32_t, size_t> index;
  for (size_t i = 0; i < run.arms.size(); ++i) {
    arms[i].arm = &run.arms[i];
    index[run.arms[i].id] = i;
  }
  for (const results::StoredTrial& t : run.trials) {
    auto it = index.find(t.arm);
    if (it == index.end()) {
      return MakeError(
          ErrorKind::kConfig,
          fmt::format("{}: trial {} names arm {}, which does not exist", run.path, t.seq, t.arm));
    }
    if (t.interrupted) continue;
    ArmData& a = arms[it->second];
    a.trials.push_back(&t);
    if (t.valid) a.valid.push_back(&t);
  }
  for (ArmData& a : arms) {
    a.used = a.valid.empty() ? a.trials : a.valid;
    for (const results::StoredTrial* t : a.used) a.blocks.push_back(t->block);
    const std::string& network = a.arm->view.network;
    const auto net = run.info.networks.find(network);
    a.split_sites = net != run.info.networks.end() && !net->second.sites.empty();
    if (Status st = LoadArm(db, a, loaded); !st) return st.error();
  }
  return arms;
}

}  // namespace pqc::report
