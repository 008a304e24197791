// summary_to_json.cc — the writer half of summary_json.h. The key order of every object is
// the order summary.json has had since schema 1: a reader may diff two documents as text.
#include "report/summary_json.h"

namespace pqc::report {
namespace {

using nlohmann::ordered_json;

template <class T>
ordered_json Nullable(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json();
}

}  // namespace

void to_json(ordered_json& j, const Bounds& b) {
  j = ordered_json::array({Nullable(b.lo), Nullable(b.hi)});
}

void to_json(ordered_json& j, const RunFacts& r) {
  j = {{"dir", r.dir},
       {"scenario", r.scenario},
       {"scenario_file", r.scenario_file},
       {"title", r.title},
       {"tool_version", r.tool_version},
       {"git_commit", r.git_commit},
       {"openssl_version", r.openssl_version},
       {"cpu_model", r.cpu_model},
       {"cores", r.cores},
       {"kernel", r.kernel},
       {"hostname", r.hostname},
       {"started", r.started},
       {"ended", Nullable(r.ended)},
       {"complete", r.complete},
       {"target", r.target},
       {"network", r.network},
       {"seed", r.seed},
       {"full", r.full},
       {"trials_planned", r.trials_planned},
       {"trials_done", r.trials_done},
       {"confidence", r.confidence},
       {"resamples", r.resamples}};
}

void to_json(ordered_json& j, const StatisticBounds& b) {
  j = {{"mean", b.mean}, {"p50", b.p50}, {"p95", b.p95}, {"p99", b.p99}};
}

void to_json(ordered_json& j, const SpreadBounds& b) {
  j = {{"p50", b.p50}, {"p99", b.p99}};
}

void to_json(ordered_json& j, const SpectrumPoint& p) {
  j = {{"q", p.q}, {"us", Nullable(p.us)}};
}

void to_json(ordered_json& j, const PhaseSummary& p) {
  j = {{"count", p.count},
       {"min", Nullable(p.min)},
       {"mean", Nullable(p.mean)},
       {"p50", Nullable(p.p50)},
       {"p95", Nullable(p.p95)},
       {"p99", Nullable(p.p99)},
       {"max", Nullable(p.max)},
       {"ci", p.ci},
       {"trial_spread", p.trial_spread},
       {"spectrum", p.spectrum}};
}

void to_json(ordered_json& j, const TrialCounts& t) {
  j = {{"planned", t.planned}, {"done", t.done}, {"valid", t.valid}};
}

void to_json(ordered_json& j, const WireBytes& b) {
  j = {{"handshake_written", Nullable(b.handshake_written)},
       {"handshake_read", Nullable(b.handshake_read)},
       {"client_hello", Nullable(b.client_hello)},
       {"server_hello", Nullable(b.server_hello)},
       {"certificate", Nullable(b.certificate)},
       {"certificate_verify", Nullable(b.certificate_verify)},
       {"server_first_flight", Nullable(b.server_first_flight)},
       {"server_first_flight_segments", Nullable(b.server_first_flight_segments)}};
}

void to_json(ordered_json& j, const CpuCosts& c) {
  j = {{"server_us_per_handshake", Nullable(c.server_us_per_handshake)},
       {"client_us_per_connection", Nullable(c.client_us_per_connection)},
       {"floor_server_us", Nullable(c.floor_server_us)},
       {"floor_client_us", Nullable(c.floor_client_us)},
       {"server_floor_ratio", Nullable(c.server_floor_ratio)},
       {"client_floor_ratio", Nullable(c.client_floor_ratio)}};
}

void to_json(ordered_json& j, const OutlierSummary& o) {
  j = {{"trial", o.trial},           {"seq", o.seq},
       {"phase", o.phase},           {"statistic", o.statistic},
       {"value", Nullable(o.value)}, {"others_median", Nullable(o.others_median)},
       {"reason", o.reason}};
}

void to_json(ordered_json& j, const ArmSummary& a) {
  ordered_json phases = ordered_json::object();
  for (Phase p : kAllPhases) {
    if (const PhaseSummary* s = a.phase(p)) phases[std::string(PhaseName(p))] = *s;
  }
  j = {{"id", a.id},
       {"label", a.label},
       {"factors", a.factors},
       {"rtt_ms", Nullable(a.rtt_ms)},
       {"payload_bytes", Nullable(a.payload_bytes)},
       {"rate", a.rate},
       {"status", a.status},
       {"failure", Nullable(a.failure)},
       {"trials", a.trials},
       {"from_invalid_trials", a.from_invalid_trials},
       {"connections", a.connections},
       {"errors", a.errors},
       {"phases", std::move(phases)},
       {"bytes", a.bytes},
       {"cpu", a.cpu},
       {"outliers", a.outliers}};
}

void to_json(ordered_json& j, const Difference& d) {
  j = {{"estimate", Nullable(d.estimate)},
       {"lo", Nullable(d.lo)},
       {"hi", Nullable(d.hi)},
       {"detectable", d.detectable},
       {"verdict", d.verdict}};
}

void to_json(ordered_json& j, const StatisticDifferences& d) {
  j = {{"mean", d.mean}, {"p50", d.p50}, {"p95", d.p95}, {"p99", d.p99}};
}

void to_json(ordered_json& j, const Comparison& c) {
  j = {{"phase", c.phase},   {"from_invalid_trials", c.from_invalid_trials},
       {"factor", c.factor}, {"baseline", c.baseline},
       {"arm", c.arm},       {"from", c.from},
       {"to", c.to},         {"diffs", c.diffs}};
}

void to_json(ordered_json& j, const ServerCpuSummary& s) {
  ordered_json per_trial = ordered_json::array();
  for (const std::optional<double>& v : s.per_trial) per_trial.push_back(Nullable(v));
  j = {{"mean", Nullable(s.mean)}, {"ci", s.ci}, {"per_trial", std::move(per_trial)}};
}

void to_json(ordered_json& j, const Estimate& e) {
  j = {{"estimate", Nullable(e.estimate)}, {"ci", e.ci}};
}

void to_json(ordered_json& j, const MoreCpu& m) {
  j = {{"estimate", Nullable(m.estimate)}, {"ci", m.ci}, {"paired_blocks", m.paired_blocks}};
}

void to_json(ordered_json& j, const CapacityArmSummary& a) {
  j = {{"arm", a.arm},
       {"label", a.label},
       {"target", a.target},
       {"trials", a.trials},
       {"from_invalid_trials", a.from_invalid_trials},
       {"server_us_per_handshake", a.server_us_per_handshake},
       {"handshakes_per_core_s", a.handshakes_per_core_s},
       {"server_busy", Nullable(a.server_busy)},
       {"floor_server_us", Nullable(a.floor_server_us)},
       {"floor_ratio", Nullable(a.floor_ratio)},
       {"baseline", Nullable(a.baseline)},
       {"baseline_label", Nullable(a.baseline_label)},
       {"more_cpu_pct", Nullable(a.more_cpu_pct)},
       {"line", a.line}};
}

void to_json(ordered_json& j, const CapacitySummary& c) {
  j = {{"basis", c.basis}, {"confidence", c.confidence}, {"arms", c.arms}};
}

void to_json(ordered_json& j, const TrialSummary& t) {
  j = {{"arm", t.arm},
       {"index", t.index},
       {"block", t.block},
       {"seq", t.seq},
       {"valid", t.valid},
       {"interrupted", t.interrupted},
       {"reasons", t.reasons},
       {"started", t.started},
       {"handshake_p50", Nullable(t.handshake_p50)},
       {"handshake_p99", Nullable(t.handshake_p99)},
       {"server_cpu_us_per_handshake", Nullable(t.server_cpu_us_per_handshake)}};
}

void to_json(ordered_json& j, const Summary& s) {
  j = {{"schema", s.schema},
       {"run", s.run},
       {"factors", s.factors},
       {"arms", s.arms},
       {"comparisons", s.comparisons},
       {"capacity", s.capacity},
       {"trials", s.trials}};
}

ordered_json SummaryJson(const Summary& summary) {
  return summary;
}

}  // namespace pqc::report
