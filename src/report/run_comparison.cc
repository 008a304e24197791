#include "report/run_comparison.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <cmath>
#include <map>
#include <memory>
#include <tuple>

#include "report/arm_samples.h"
#include "report/study_summary.h"
#include "results/run_reader.h"
#include "stats/bootstrap.h"
#include "stats/run_difference.h"
#include "stats/student_t.h"
#include "stats/trial_jackknife.h"
#include "stats/variance_components.h"
#include "stats/verdict.h"

namespace pqc::report {
namespace {

constexpr std::array kStatistics = {Statistic::kMean, Statistic::kP50, Statistic::kP95,
                                    Statistic::kP99};

// LoadedRun: one run's database, its stored facts and its pooled arms (which point into
// `run`, hence the fixed address).
struct LoadedRun {
  std::string path;
  std::unique_ptr<results::Db> db;
  results::StoredRun run;
  std::vector<ArmData> arms;
  // members: for one side of several runs, the runs its arms pool (their arms point into them).
  std::vector<std::unique_ptr<LoadedRun>> members;
};

Result<std::unique_ptr<LoadedRun>> Load(const std::string& path) {
  auto r = std::make_unique<LoadedRun>();
  r->path = path;
  auto db = results::OpenResults(path);
  if (!db) return db.error();
  r->db = std::make_unique<results::Db>(std::move(*db));
  auto run = results::ReadRun(*r->db);
  if (!run) return run.error();
  r->run = std::move(*run);
  auto arms = PoolArms(*r->db, r->run);
  if (!arms) return arms.error();
  r->arms = std::move(*arms);
  return r;
}

std::string KeyOf(const ArmData& a) {
  return nlohmann::json(a.arm->factors).dump();
}

// CombineArm: one arm pooled over several runs; each run's trials are one replicate unit
// (blocks = the run's index in the side).
ArmData CombineArm(const std::vector<std::pair<size_t, const ArmData*>>& parts) {
  ArmData out;
  out.arm = parts.front().second->arm;
  std::array<TrialSamples, kAllPhases.size()> samples;
  for (const auto& [run, a] : parts) {
    out.trials.insert(out.trials.end(), a->trials.begin(), a->trials.end());
    out.valid.insert(out.valid.end(), a->valid.begin(), a->valid.end());
    out.used.insert(out.used.end(), a->used.begin(), a->used.end());
    out.blocks.insert(out.blocks.end(), a->used.size(), run);
    for (size_t p = 0; p < samples.size(); ++p) {
      TrialSamples t = a->phases[p] ? a->phases[p]->ByTrial() : TrialSamples(a->used.size());
      for (auto& v : t) samples[p].push_back(std::move(v));
    }
    out.connections += a->connections;
    out.errors += a->errors;
    out.bytes.Add(a->bytes);
    out.server_cpu_s += a->server_cpu_s;
    out.client_cpu_s += a->client_cpu_s;
    out.server_handshakes += a->server_handshakes;
    out.server_us_per_handshake.insert(out.server_us_per_handshake.end(),
                                       a->server_us_per_handshake.begin(),
                                       a->server_us_per_handshake.end());
    out.client_us_per_connection.insert(out.client_us_per_connection.end(),
                                        a->client_us_per_connection.begin(),
                                        a->client_us_per_connection.end());
  }
  for (size_t p = 0; p < samples.size(); ++p) {
    size_t n = 0;
    for (const auto& v : samples[p]) n += v.size();
    if (n > 0) out.phases[p] = std::make_unique<PooledSamples>(samples[p]);
  }
  return out;
}

// LoadSide: several runs as one, their arms matched by factors and pooled, the first run's
// facts standing for the side's. An arm is the first run's arm, pooled over the runs that have
// it (an arm only the later runs have is not compared).
Result<std::unique_ptr<LoadedRun>> LoadSide(const std::vector<std::string>& paths) {
  auto side = std::make_unique<LoadedRun>();
  for (const std::string& p : paths) {
    auto r = Load(p);
    if (!r) return r.error();
    side->path += (side->path.empty() ? "" : " + ") + p;
    side->members.push_back(std::move(*r));
  }
  side->run = side->members.front()->run;
  for (const ArmData& first : side->members.front()->arms) {
    std::vector<std::pair<size_t, const ArmData*>> parts;
    for (size_t k = 0; k < side->members.size(); ++k) {
      for (const ArmData& a : side->members[k]->arms) {
        if (KeyOf(a) == KeyOf(first)) parts.emplace_back(k, &a);
      }
    }
    side->arms.push_back(CombineArm(parts));
  }
  return side;
}

// RunsOf: the per-run arms behind `arm` on its side: the member runs' arms of the same factors
// (a side of several runs), or the arm itself (one run).
std::vector<const ArmData*> RunsOf(const LoadedRun& side, const ArmData& arm) {
  if (side.members.empty()) return {&arm};
  std::vector<const ArmData*> out;
  for (const auto& member : side.members) {
    for (const ArmData& a : member->arms) {
      if (KeyOf(a) == KeyOf(arm)) out.push_back(&a);
    }
  }
  return out;
}

std::string Sha256Hex(const std::string& text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(text.data(), text.size(), md, &n, EVP_sha256(), nullptr) != 1) return {};
  std::string hex;
  for (unsigned int i = 0; i < n; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

ComparedRun FactsOf(const LoadedRun& r, const CompareOptions& o) {
  return {.path = r.path,
          .scenario_sha256 = Sha256Hex(r.run.info.scenario_text),
          .facts = FactsOfRun(r.run, {.resamples = o.resamples, .confidence = o.confidence})};
}

// FactsThatDiffer: what a reader must know before trusting a difference — the machine, the
// OpenSSL build, the tool and the scenario, where run k differs from the baseline.
void FactsThatDiffer(const ComparedRun& b, const ComparedRun& o, size_t k, size_t base,
                     std::vector<std::string>& out) {
  const RunFacts &bf = b.facts, &of = o.facts;
  const std::pair<const char*, std::pair<std::string, std::string>> facts[] = {
      {"cpu_model", {bf.cpu_model, of.cpu_model}},
      {"cores", {std::to_string(bf.cores), std::to_string(of.cores)}},
      {"kernel", {bf.kernel, of.kernel}},
      {"hostname", {bf.hostname, of.hostname}},
      {"openssl_version", {bf.openssl_version, of.openssl_version}},
      {"tool_version", {bf.tool_version, of.tool_version}},
      {"git_commit", {bf.git_commit, of.git_commit}},
      {"target", {bf.target, of.target}},
      {"network", {bf.network, of.network}},
      {"scenario", {bf.scenario, of.scenario}},
      {"scenario text (sha256)",
       {b.scenario_sha256.substr(0, 12), o.scenario_sha256.substr(0, 12)}},
  };
  for (const auto& [name, values] : facts) {
    if (values.first != values.second) {
      out.push_back(fmt::format("run {} vs run {}: {} {} vs {}", k + 1, base + 1, name,
                                values.first, values.second));
    }
  }
}

std::vector<std::string> SettingDifferences(const nlohmann::json& base,
                                            const nlohmann::json& other) {
  std::vector<std::string> out;
  for (const auto& [key, value] : base.items()) {
    const auto it = other.find(key);
    if (it == other.end()) {
      out.push_back(fmt::format("{}: {} vs (not stored)", key, value.dump()));
    } else if (*it != value) {
      out.push_back(fmt::format("{}: {} vs {}", key, value.dump(), it->dump()));
    }
  }
  for (const auto& [key, value] : other.items()) {
    if (!base.contains(key))
      out.push_back(fmt::format("{}: (not stored) vs {}", key, value.dump()));
  }
  return out;
}

std::optional<double> StatisticOfArm(const ArmData& a, Phase p, Statistic s) {
  const auto& samples = a.phases[static_cast<size_t>(p)];
  if (!samples || samples->size() == 0) return std::nullopt;
  return Finite(StatisticOf(samples->sorted(), s));
}

// kCannotJudge: the verdict where a difference has no interval, and what would give it one.
constexpr const char* kCannotJudge =
    "no interval: cannot judge (run 2 or more trials per run, or compare 2 or more runs per "
    "side with --against)";

// CpuFloorVariance: what one trial's CPU per handshake (or per connection) is known to at best:
// rusage counts µs, so each trial's CPU total is rounded to ±0.5 µs (variance 1/12 µs²), spread
// over the trial's `count` handshakes (connections). Tiny, but never zero: tied trials do not
// make any change "detectable".
double CpuFloorVariance(double count, size_t trials) {
  if (trials == 0 || !(count > 0)) return 1.0 / 12;
  const double per_trial = count / static_cast<double>(trials);
  return 1.0 / 12 / std::max(1.0, per_trial * per_trial);
}

// Runs: the per-run arms of one side of a comparison (a single run: itself).
using Runs = std::vector<const ArmData*>;

// CpuOf: CPU per handshake (`values`, counted over `count`) of two sides, with the runs as a
// level (run_difference.h); a run that measured none is left out.
template <typename Count>
CpuVersus CpuOf(std::string what, const Runs& base_runs, const Runs& other_runs,
                std::vector<double> ArmData::*values, Count ArmData::*count, double confidence) {
  std::vector<double> base, other;
  std::vector<UnitInterval> rb, ro;
  for (auto [runs, all, out] : {std::tuple{&base_runs, &base, &rb}, {&other_runs, &other, &ro}}) {
    for (const ArmData* a : *runs) {
      const std::vector<double>& v = a->*values;
      if (v.empty()) continue;
      all->insert(all->end(), v.begin(), v.end());
      const double n = static_cast<double>(a->*count);
      out->push_back(RunOfValues(v, CpuFloorVariance(n, v.size()), confidence));
    }
  }
  const MeanInterval b = TInterval(base, confidence), o = TInterval(other, confidence);
  const UnitInterval d = RunsDifference(b.mean, rb, o.mean, ro, confidence).difference;
  Verdict verdict = MakeVerdict(d.interval, VerdictUnit::kMicroseconds);
  if (!std::isfinite(d.interval.estimate)) {
    verdict.text = "not measured in both runs";
  } else if (std::isnan(d.interval.lo)) {
    verdict.text = fmt::format("{:+.1f} µs ({})", d.interval.estimate, kCannotJudge);
  }
  return {.what = std::move(what),
          .baseline_us = Finite(b.mean),
          .other_us = Finite(o.mean),
          .relative_pct = Finite(b.n > 0 && b.mean > 0 ? 100 * d.interval.estimate / b.mean : NAN),
          .baseline_trials = b.n,
          .other_trials = o.n,
          .difference = {Finite(d.interval.estimate), Finite(d.interval.lo), Finite(d.interval.hi),
                         verdict.detectable, std::move(verdict.text), d.units, std::nullopt}};
}

// SideIntervals: each run's own interval of the statistic over its trials (blocks).
std::vector<UnitInterval> SideIntervals(const Runs& runs, Phase p, Statistic s,
                                        const UnitOptions& uo) {
  std::vector<UnitInterval> out;
  for (const ArmData* a : runs) {
    const auto& samples = a->phases[static_cast<size_t>(p)];
    if (samples && samples->size() > 0) out.push_back(TrialInterval(*samples, a->blocks, s, uo));
  }
  return out;
}

// Versus: the arm of one side (`b`, pooled over `b_runs`) against the other's (`o`). Every
// interval has the run as a level: each run's trials give its own interval, the runs' spread
// the drift between them (run_difference.h).
ArmVersus Versus(const ArmData& b, const Runs& b_runs, const ArmData& o, const Runs& o_runs,
                 size_t run, const BootstrapOptions& bo) {
  ArmVersus v;
  v.run = run;
  v.baseline_arm = b.arm->id;
  v.arm = o.arm->id;
  v.from_invalid_trials = b.from_invalid() || o.from_invalid();
  const UnitOptions uo{.confidence = bo.confidence, .min_tail = bo.min_tail};
  for (Phase p : kAllPhases) {
    const auto& sb = b.phases[static_cast<size_t>(p)];
    const auto& so = o.phases[static_cast<size_t>(p)];
    if (!sb || !so) continue;
    PhaseVersus& pv = v.phases.emplace_back();
    pv.phase = p;
    for (Statistic s : kStatistics) {
      const std::vector<UnitInterval> rb = SideIntervals(b_runs, p, s, uo);
      const std::vector<UnitInterval> ro = SideIntervals(o_runs, p, s, uo);
      const std::optional<double> eb = StatisticOfArm(b, p, s), eo = StatisticOfArm(o, p, s);
      const UnitInterval d =
          RunsDifference(eb.value_or(NAN), rb, eo.value_or(NAN), ro, bo.confidence).difference;
      // The design effect of each side: its variance over its replicates (trials, or runs)
      // against its connections' alone.
      auto design_effect = [&](const ArmData& a, const PooledSamples& samples) {
        const UnitInterval i = TrialInterval(samples, a.blocks, s, uo);
        return Finite(
            ComponentsOf(i.variance, StratifiedVariance(samples, s, bo), i.units, samples.size(), s)
                .design_effect);
      };
      Verdict verdict = MakeVerdict(d.interval);
      if (std::isnan(d.interval.lo) && std::isfinite(d.interval.estimate)) {
        verdict.text = kCannotJudge;
      }
      pv.statistics.push_back(
          {s,
           eb,
           eo,
           {Finite(d.interval.estimate), Finite(d.interval.lo), Finite(d.interval.hi),
            verdict.detectable, std::move(verdict.text), d.units, std::nullopt},
           design_effect(b, *sb),
           design_effect(o, *so)});
    }
  }
  const ByteStats bb = b.bytes.Bytes(), ob = o.bytes.Bytes();
  v.bytes = {
      {"ClientHello", Finite(bb.client_hello.mean), Finite(ob.client_hello.mean)},
      {"ServerHello", Finite(bb.server_hello.mean), Finite(ob.server_hello.mean)},
      {"Certificate", Finite(bb.certificate.mean), Finite(ob.certificate.mean)},
      {"CertificateVerify", Finite(bb.certificate_verify.mean), Finite(ob.certificate_verify.mean)},
      {"server's first flight", Finite(bb.handshake_read_mean), Finite(ob.handshake_read_mean)}};
  v.cpu = {CpuOf("server CPU per handshake", b_runs, o_runs, &ArmData::server_us_per_handshake,
                 &ArmData::server_handshakes, bo.confidence),
           CpuOf("client CPU per connection", b_runs, o_runs, &ArmData::client_us_per_connection,
                 &ArmData::connections, bo.confidence)};
  v.setting_differences = SettingDifferences(b.arm->settings, o.arm->settings);
  return v;
}

RunSpectra SpectraOf(const ArmData& a, size_t run) {
  RunSpectra out{.run = run};
  for (size_t p = 0; p < a.phases.size(); ++p) {
    if (a.phases[p]) out.phases[p] = SpectrumOf(a.phases[p]->sorted());
  }
  return out;
}

void EvaluateGates(const std::vector<Gate>& gates, const MatchedArm& arm, RunComparison& out) {
  for (const Gate& g : gates) {
    for (const ArmVersus& v : arm.versus) {
      for (const PhaseVersus& p : v.phases) {
        if (p.phase != g.phase) continue;
        for (const StatisticVersus& s : p.statistics) {
          if (s.statistic != g.statistic) continue;
          GateResult r{.gate = g.text, .arm = arm.label, .run = v.run};
          r.baseline_us = s.baseline_us;
          r.threshold_us = GateThresholdUs(g, s.baseline_us);
          r.difference = s.difference;
          r.failed = GateFails(g, s.difference.lo, s.difference.hi, s.baseline_us);
          r.cannot_judge = GateCannotJudge(g, s.difference.estimate, s.difference.lo,
                                           s.difference.hi, s.baseline_us);
          out.gates.push_back(std::move(r));
        }
      }
    }
  }
}

}  // namespace

bool RunComparison::any_gate_cannot_judge() const {
  for (const GateResult& g : gates) {
    if (g.cannot_judge) return true;
  }
  return false;
}

bool RunComparison::any_gate_failed() const {
  for (const GateResult& g : gates) {
    if (g.failed) return true;
  }
  return false;
}

Result<RunComparison> CompareRuns(const std::vector<std::string>& paths,
                                  const CompareOptions& options) {
  std::vector<std::unique_ptr<LoadedRun>> runs;
  if (!options.against.empty()) {
    if (paths.size() < 2 || options.against.size() < 2) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("compare RUN... --against RUN...: {} and {} run(s); each side "
                                   "needs two runs or more, its runs being the replicates (with "
                                   "one run per side, `compare A B` uses their trials)",
                                   paths.size(), options.against.size()));
    }
    for (const auto* side : {&paths, &options.against}) {
      auto r = LoadSide(*side);
      if (!r) return r.error();
      runs.push_back(std::move(*r));
    }
  } else if (paths.size() < 2) {
    return MakeError(ErrorKind::kUsage,
                     "compare needs two runs or more (run directories or "
                     "results.sqlite files)");
  }
  if (options.against.empty() && options.baseline >= paths.size()) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--baseline {}: there are {} runs (1 to {})", options.baseline + 1,
                                 paths.size(), paths.size()));
  }
  if (runs.empty()) {
    for (const std::string& p : paths) {
      auto r = Load(p);
      if (!r) return r.error();
      runs.push_back(std::move(*r));
    }
  }
  RunComparison out;
  out.baseline = options.against.empty() ? options.baseline : 0;
  out.confidence = options.confidence;
  out.replicate = options.against.empty() ? "trial" : "run";
  for (const auto& r : runs) out.runs.push_back(FactsOf(*r, options));
  const size_t base = out.baseline;
  for (size_t k = 0; k < runs.size(); ++k) {
    if (k != base) FactsThatDiffer(out.runs[base], out.runs[k], k, base, out.facts_that_differ);
  }
  // Arms by their factors: {"group": "X25519"} names the same arm in any run of the study.
  std::vector<std::map<std::string, const ArmData*>> by_key(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    for (const ArmData& a : runs[k]->arms) {
      by_key[k][KeyOf(a)] = &a;
    }
  }
  BootstrapOptions bo;
  bo.resamples = options.resamples;
  bo.confidence = options.confidence;
  bo.seed = runs[base]->run.info.seed;
  for (const ArmData& b : runs[base]->arms) {
    MatchedArm m;
    m.label = b.arm->label;
    m.factors = nlohmann::json(b.arm->factors).dump();
    m.spectra.push_back(SpectraOf(b, base));
    for (size_t k = 0; k < runs.size(); ++k) {
      if (k == base) continue;
      auto it = by_key[k].find(m.factors);
      if (it == by_key[k].end()) continue;
      m.versus.push_back(
          Versus(b, RunsOf(*runs[base], b), *it->second, RunsOf(*runs[k], *it->second), k, bo));
      m.spectra.push_back(SpectraOf(*it->second, k));
    }
    if (m.versus.size() + 1 < runs.size()) {
      // Missing from some run: listed with the run that has it, never dropped silently.
      out.only_in_one.push_back({base, m.label, m.factors});
    }
    EvaluateGates(options.gates, m, out);
    out.arms.push_back(std::move(m));
  }
  for (size_t k = 0; k < runs.size(); ++k) {
    if (k == base) continue;
    for (const auto& [key, a] : by_key[k]) {
      if (by_key[base].count(key) == 0) out.only_in_one.push_back({k, a->arm->label, key});
    }
  }
  return out;
}

}  // namespace pqc::report
