#include "report/study_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "records/summary.h"
#include "core/units.h"
#include "report/arm_intervals.h"
#include "report/arm_samples.h"
#include "report/capacity.h"
#include "stats/bootstrap.h"
#include "stats/outlier_trials.h"
#include "stats/percentiles.h"
#include "stats/pooled_samples.h"
#include "stats/trial_spread.h"

namespace pqc::report {

std::vector<SpectrumPoint> SpectrumOf(std::span<const double> sorted) {
  // The grid: dense in the tail, where hybrid key exchange and loss show.
  constexpr std::array kGrid = {0.0, 0.1,  0.2,  0.3,   0.4,   0.5,    0.6,    0.7, 0.8,
                                0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 1.0};
  std::vector<SpectrumPoint> out;
  const double n = static_cast<double>(sorted.size());
  for (double q : kGrid) {
    // A tail percentile needs at least one sample beyond it to be more than the maximum.
    if (q > 0 && q < 1 && n * (1 - q) < 1) continue;
    out.push_back({q, Finite(Percentile(sorted, q))});
  }
  return out;
}

namespace {

PhaseSummary SummarizePhase(const PooledSamples& s, std::span<const uint64_t> blocks,
                            const WithinVariances& within, const BootstrapOptions& bo) {
  const std::span<const double> sorted = s.sorted();
  const PhaseStats st = Summarize(std::vector<double>(sorted.begin(), sorted.end()));
  PhaseSummary out{.count = st.count,
                   .min = Finite(st.min),
                   .mean = Finite(st.mean),
                   .p50 = Finite(st.p50),
                   .p95 = Finite(st.p95),
                   .p99 = Finite(st.p99),
                   .max = Finite(st.max)};
  PhaseIntervals(s, blocks, within, bo, out);
  const TrialSpread p50 = SpreadBetweenTrials(s, Statistic::kP50);
  const TrialSpread p99 = SpreadBetweenTrials(s, Statistic::kP99);
  out.trial_spread = {FiniteBounds(p50.min, p50.max), FiniteBounds(p99.min, p99.max)};
  out.spectrum = SpectrumOf(sorted);
  return out;
}

// Networks: profile name → RTT in ms and description, as stored with the run
// (results::RunInfo::networks); an older file without them has only loopback's.
struct Networks {
  std::map<std::string, double> rtts{{"loopback", 0.0}};
  std::map<std::string, std::string> descriptions{{"loopback", "loopback (no emulation)"}};
  std::map<std::string, std::vector<results::SiteFacts>> sites;  // networks of several sites
};
Networks NetworksOf(const results::StoredRun& run) {
  Networks out;
  for (const auto& [name, facts] : run.info.networks) {
    if (facts.rtt_ms) out.rtts[name] = *facts.rtt_ms;
    if (name != "loopback" && !facts.describe.empty()) {
      out.descriptions[name] = name + ": " + facts.describe;
    }
    if (!facts.sites.empty()) out.sites[name] = facts.sites;
  }
  return out;
}

// RunNetwork: the networks the arms ran on, in arm order ("loopback (no emulation)", or
// "rtt1: rtt 1ms; rtt70: rtt 70ms").
std::string RunNetwork(const results::StoredRun& run, const Networks& networks) {
  std::vector<std::string> seen;
  for (const results::StoredArm& a : run.arms) {
    const std::string& name = a.view.network;
    if (std::find(seen.begin(), seen.end(), name) == seen.end()) seen.push_back(name);
  }
  std::string out;
  for (const std::string& name : seen) {
    auto it = networks.descriptions.find(name);
    out += (out.empty() ? "" : "; ") + (it != networks.descriptions.end() ? it->second : name);
  }
  return out;
}

std::string Factor(const results::StoredArm& a, const std::string& name) {
  auto it = a.factors.find(name);
  return it != a.factors.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// SummarizeSitePhase: count, mean and percentiles of one site's samples of a phase.
std::optional<SitePhase> SummarizeSitePhase(const std::vector<double>& samples) {
  if (samples.empty()) return std::nullopt;
  const PhaseStats st = Summarize(samples);
  return SitePhase{.count = st.count,
                   .mean = Finite(st.mean),
                   .p50 = Finite(st.p50),
                   .p95 = Finite(st.p95),
                   .p99 = Finite(st.p99)};
}

// SitesOf: the arm's connections split by client site, with each phase's p50 in the site's
// round trips.
std::vector<SiteSummary> SitesOf(const ArmData& a, const std::vector<results::SiteFacts>& facts) {
  std::vector<SiteSummary> out;
  for (size_t k = 0; k < std::max(facts.size(), a.sites.size()); ++k) {
    SiteSummary s;
    s.site = k;
    s.name = k < facts.size() ? facts[k].name : fmt::format("site {}", k);
    s.rtt_ms = k < facts.size() ? facts[k].rtt_ms : std::nullopt;
    if (k < a.sites.size()) {
      const SiteData& d = a.sites[k];
      s.connections = d.connections;
      s.errors = d.errors;
      auto phase = [&](Phase p) { return SummarizeSitePhase(d.samples[static_cast<size_t>(p)]); };
      s.connect = phase(Phase::kConnect);
      s.handshake = phase(Phase::kHandshake);
      s.ttfb = phase(Phase::kTtfb);
      s.total = phase(Phase::kTotal);
    }
    auto round_trips = [&](const std::optional<SitePhase>& p) -> std::optional<double> {
      if (!p || !p->p50 || !s.rtt_ms || *s.rtt_ms <= 0) return std::nullopt;
      return *p->p50 / 1000.0 / *s.rtt_ms;
    };
    s.connect_round_trips = round_trips(s.connect);
    s.handshake_round_trips = round_trips(s.handshake);
    out.push_back(std::move(s));
  }
  return out;
}

ArmSummary SummarizeArm(const ArmData& a, const ArmWithin& within, const Networks& networks,
                        const BootstrapOptions& bo, uint32_t planned) {
  const std::map<std::string, double>& rtts = networks.rtts;
  const results::StoredArm& arm = *a.arm;
  ArmSummary out;
  out.id = arm.id;
  out.label = arm.label;
  for (const auto& [k, v] : arm.settings.items()) {
    if (k == "group" || k == "chain" || k == "payload" || k == "mode" || k == "network") {
      out.factors[k] = v;
    }
  }
  for (const auto& [k, v] : arm.factors.items()) out.factors[k] = v;
  if (rtts.count(arm.view.network) > 0) out.rtt_ms = rtts.at(arm.view.network);
  const std::string& payload = arm.view.payload;
  if (payload == "OK") {
    out.payload_bytes = 3;
  } else if (auto bytes = ParseSize(payload)) {
    out.payload_bytes = *bytes;
  }
  out.rate = arm.view.rate;
  const bool failed = arm.status == results::ArmStatus::kFailed;
  out.status = failed            ? ArmOutcome::kFailed
               : a.valid.empty() ? ArmOutcome::kInvalid
                                 : ArmOutcome::kOk;
  if (failed) out.failure = arm.failure;
  out.trials = {planned, a.trials.size(), a.valid.size()};
  out.from_invalid_trials = a.from_invalid();
  out.connections = a.connections;
  out.errors = a.errors;
  for (Phase p : kAllPhases) {
    const auto& s = a.phases[static_cast<size_t>(p)];
    if (s) {
      out.phases[static_cast<size_t>(p)] =
          SummarizePhase(*s, a.blocks, within[static_cast<size_t>(p)], bo);
    }
  }
  if (auto it = networks.sites.find(arm.view.network);
      it != networks.sites.end() && a.split_sites) {
    out.sites = SitesOf(a, it->second);
  }
  const ByteStats b = a.bytes.Bytes();
  out.bytes = {.handshake_written = Finite(b.handshake_written_mean),
               .handshake_read = Finite(b.handshake_read_mean),
               .client_hello = Finite(b.client_hello.mean),
               .server_hello = Finite(b.server_hello.mean),
               .certificate = Finite(b.certificate.mean),
               .certificate_verify = Finite(b.certificate_verify.mean),
               // Everything the client read until its handshake finished: the server's
               // first flight with its record framing (what the initial window must hold).
               .server_first_flight = Finite(b.handshake_read_mean),
               // The same flight as TCP segments: the initial window counts segments (10),
               // and a server that writes its flight in pieces fills them partly.
               .server_first_flight_segments = Finite(a.bytes.SegmentsMean())};
  // Measured next to the floor priced at the run's start (null in schema-1 files), and the
  // overhead ratio: what the TLS stack, HTTP, the kernel and the tool add on top of the
  // unavoidable public-key operations.
  const double server_us = a.server_handshakes > 0
                               ? a.server_cpu_s * 1e6 / static_cast<double>(a.server_handshakes)
                               : NAN;
  // A busy-polling client spends its CPU waiting by design: its CPU time is no cost per
  // connection, so none is reported.
  const bool busy_poll = arm.view.busy_poll;
  const double client_us = a.connections > 0 && !busy_poll
                               ? a.client_cpu_s * 1e6 / static_cast<double>(a.connections)
                               : NAN;
  const double floor_server = arm.floor ? arm.floor->server_us : NAN;
  const double floor_client = arm.floor ? arm.floor->client_us : NAN;
  out.cpu = {.server_us_per_handshake = Finite(server_us),
             .client_us_per_connection = Finite(client_us),
             .floor_server_us = Finite(floor_server),
             .floor_client_us = Finite(floor_client),
             .server_floor_ratio = Finite(floor_server > 0 ? server_us / floor_server : NAN),
             .client_floor_ratio = Finite(floor_client > 0 ? client_us / floor_client : NAN)};
  for (Phase p : {Phase::kHandshake, Phase::kTtfb, Phase::kTotal}) {
    const auto& s = a.phases[static_cast<size_t>(p)];
    if (!s) continue;
    for (Statistic stat : {Statistic::kP50, Statistic::kP99}) {
      for (const OutlierTrial& o : FindOutlierTrials(SpreadBetweenTrials(*s, stat), stat)) {
        const results::StoredTrial* t = a.used[s->input_index(o.trial)];
        out.outliers.push_back({.trial = t->block + 1,
                                .seq = t->seq,
                                .phase = std::string(PhaseName(p)),
                                .statistic = std::string(StatisticName(stat)),
                                .value = Finite(o.value),
                                .others_median = Finite(o.others_median),
                                .reason = o.reason});
      }
    }
  }
  return out;
}

// Comparisons: for each factor that varies, every arm against the arm that differs from it
// only in that factor, where the factor takes its first value (the baseline, e.g. X25519).
std::vector<Comparison> Comparisons(const std::vector<ArmData>& arms,
                                    const std::vector<ArmWithin>& within,
                                    const std::vector<std::string>& factors,
                                    const BootstrapOptions& bo, double resolve_pct) {
  std::vector<Comparison> out;
  for (const std::string& f : factors) {
    const std::string baseline = Factor(*arms.front().arm, f);
    for (const ArmData& b : arms) {
      const std::string to = Factor(*b.arm, f);
      if (to == baseline) continue;
      const ArmData* a = nullptr;
      for (const ArmData& cand : arms) {
        if (Factor(*cand.arm, f) != baseline) continue;
        bool same = true;
        for (const std::string& g : factors) {
          if (g != f && Factor(*cand.arm, g) != Factor(*b.arm, g)) same = false;
        }
        if (same) a = &cand;
      }
      if (a == nullptr) continue;
      for (Phase p : kAllPhases) {
        const auto& sa = a->phases[static_cast<size_t>(p)];
        const auto& sb = b.phases[static_cast<size_t>(p)];
        if (!sa || !sb) continue;
        Comparison& c = out.emplace_back();
        c.phase = PhaseName(p);
        c.from_invalid_trials = a->from_invalid() || b.from_invalid();
        c.factor = f;
        c.baseline = a->arm->id;
        c.arm = b.arm->id;
        c.from = baseline;
        c.to = to;
        c.control = a->arm->settings == b.arm->settings;
        const size_t ia = static_cast<size_t>(a - arms.data());
        const size_t ib = static_cast<size_t>(&b - arms.data());
        c.diffs = PhaseDifferences(*a, within[ia], b, within[ib], p, bo, resolve_pct);
      }
    }
  }
  return out;
}

// CapacityInput: what capacity.h needs of an arm: its trials' own server CPU and handshakes.
// Runs before the target setting existed stored no per-arm target: theirs is the run's.
CapacityArm CapacityInput(const ArmData& a, const std::string& run_target) {
  const results::StoredArm& arm = *a.arm;
  CapacityArm c;
  c.id = arm.id;
  c.label = arm.label;
  c.target = arm.view.target.empty() ? run_target : arm.view.target;
  c.group = arm.view.group;
  c.chain = arm.view.chain;
  // Every setting but the cryptography's (and the target, compared on its own): a baseline
  // must have run the same load, whatever the matrix factors are called.
  for (const auto& [k, v] : arm.settings.items()) {
    if (k != "group" && k != "client_groups" && k != "key_shares" && k != "server_groups" &&
        k != "chain" && k != "server_chains" && k != "sigalgs" && k != "target") {
      c.other_factors.emplace_back(k, v.dump());
    }
  }
  c.failed = arm.status == results::ArmStatus::kFailed;
  c.from_invalid = a.from_invalid();
  for (const results::StoredTrial* t : a.used) {
    if (t->server_cpu_s && t->server_handshakes) {
      const double wall = std::isfinite(t->target.wall_s) ? t->target.wall_s : 0.0;
      c.trials.push_back({t->block, *t->server_cpu_s, *t->server_handshakes, wall});
    }
  }
  if (arm.floor) c.floor_server_us = arm.floor->server_us;
  return c;
}

}  // namespace

RunFacts FactsOfRun(const results::StoredRun& run, const SummaryOptions& options) {
  const Networks networks = NetworksOf(run);
  return {.dir = run.path,
          .scenario = run.info.scenario,
          .scenario_file = run.info.scenario_file,
          .title = run.info.title,
          .tool_version = run.info.tool_version,
          .git_commit = run.info.git_commit,
          .openssl_version = run.info.openssl_version,
          .cpu_model = run.info.cpu_model,
          .cores = run.info.cores,
          .kernel = run.info.kernel,
          .hostname = run.info.hostname,
          .started = run.info.started,
          .ended = run.ended.empty() ? std::nullopt : std::optional<std::string>(run.ended),
          .complete = run.complete,
          .target = run.info.target,
          .network = RunNetwork(run, networks),
          .seed = run.info.seed,
          .full = run.info.options.full,
          .trials_planned = run.info.trials_planned,
          .trials_done = run.trials.size(),
          .confidence = options.confidence,
          .resamples = options.resamples,
          .replicate = "trial",
          .resolve_pct = options.resolve_pct};
}

Result<Summary> BuildStudySummary(results::Db& db, const results::StoredRun& run,
                                  const SummaryOptions& options, const LoadedTrials* loaded) {
  BootstrapOptions bo;
  bo.resamples = options.resamples;
  bo.confidence = options.confidence;
  bo.seed = run.info.seed;

  auto pooled = PoolArms(db, run, loaded);
  if (!pooled) return pooled.error();
  const std::vector<ArmData>& arms = *pooled;

  // Factors that vary between arms, in the scenario's order.
  std::vector<std::string> varying;
  if (!run.arms.empty()) {
    for (const auto& [name, v] : run.arms.front().factors.items()) {
      for (const results::StoredArm& a : run.arms) {
        if (Factor(a, name) != Factor(run.arms.front(), name)) {
          varying.push_back(name);
          break;
        }
      }
    }
  }

  const Networks networks = NetworksOf(run);
  const uint32_t planned_per_arm =
      run.arms.empty() ? 0 : run.info.trials_planned / static_cast<uint32_t>(run.arms.size());
  Summary doc;
  doc.run = FactsOfRun(run, options);
  doc.factors = varying;
  std::vector<ArmWithin> within;
  for (const ArmData& a : arms) within.push_back(WithinVariancesOf(a, bo));
  for (size_t i = 0; i < arms.size(); ++i) {
    doc.arms.push_back(SummarizeArm(arms[i], within[i], networks, bo, planned_per_arm));
  }
  if (!arms.empty()) {
    doc.comparisons = Comparisons(arms, within, varying, bo, options.resolve_pct);
  }
  std::vector<CapacityArm> capacity;
  for (const ArmData& a : arms) capacity.push_back(CapacityInput(a, run.info.target));
  doc.capacity = CapacityOf(capacity, options.confidence);
  doc.stop = run.stop;
  std::map<uint32_t, uint32_t> per_arm;
  for (const results::StoredTrial& t : run.trials) {
    const double cpu = t.server_cpu_s && t.server_handshakes && *t.server_handshakes > 0
                           ? *t.server_cpu_s * 1e6 / static_cast<double>(*t.server_handshakes)
                           : NAN;
    doc.trials.push_back({.arm = t.arm,
                          .index = per_arm[t.arm]++,
                          .block = t.block,
                          .seq = t.seq,
                          .valid = t.valid,
                          .interrupted = t.interrupted,
                          .reasons = t.reasons,
                          .started = t.started,
                          .handshake_p50 = Finite(t.summary.phase(Phase::kHandshake).p50),
                          .handshake_p99 = Finite(t.summary.phase(Phase::kHandshake).p99),
                          .server_cpu_us_per_handshake = Finite(cpu),
                          .build = t.target.build});
  }
  return doc;
}

}  // namespace pqc::report
