// summary_fields — each record of summary.h as its list of (key, member) pairs in document
// order, written once and walked by both the writer (summary_to_json.cc) and the reader
// (summary_from_json.cc), so that the two cannot disagree on a key or its place. Internal to
// the summary's JSON form; reporters use the records themselves.
// pqc: internal
#pragma once

#include <concepts>
#include <type_traits>

#include "report/summary.h"

namespace pqc::report {

// Of: R is the record T, const (for the writer) or not (for the reader).
template <class R, class T>
concept Of = std::same_as<std::remove_const_t<R>, T>;

template <Of<RunFacts> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("dir", r.dir);
  v("scenario", r.scenario);
  v("scenario_file", r.scenario_file);
  v("title", r.title);
  v("tool_version", r.tool_version);
  v("git_commit", r.git_commit);
  v("openssl_version", r.openssl_version);
  v("cpu_model", r.cpu_model);
  v("cores", r.cores);
  v("kernel", r.kernel);
  v("hostname", r.hostname);
  v("started", r.started);
  v("ended", r.ended);
  v("complete", r.complete);
  v("target", r.target);
  v("network", r.network);
  v("seed", r.seed);
  v("full", r.full);
  v("trials_planned", r.trials_planned);
  v("trials_done", r.trials_done);
  v("confidence", r.confidence);
  v("resamples", r.resamples);
  v("replicate", r.replicate);
  v("resolve_pct", r.resolve_pct);
}

// The per-statistic records: intervals ("ci") and differences ("diffs").
template <class R, class Visit>
requires Of<R, StatisticBounds> || Of<R, StatisticDifferences> || Of<R, StatisticVariance>
void Fields(R& r, Visit&& v) {
  v("mean", r.mean);
  v("p50", r.p50);
  v("p95", r.p95);
  v("p99", r.p99);
}

template <Of<VarianceSplit> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("between_sd", r.between_sd);
  v("within_sd", r.within_sd);
  v("design_effect", r.design_effect);
  v("icc", r.icc);
  v("effective_connections", r.effective_connections);
  v("trials_disagree", r.trials_disagree);
}

template <Of<TrialPlanSummary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("resolve_us", r.resolve_us);
  v("trials", r.trials);
  v("duration_s", r.duration_s);
  v("total_s", r.total_s);
}

template <Of<SpreadBounds> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("p50", r.p50);
  v("p99", r.p99);
}

template <Of<SpectrumPoint> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("q", r.q);
  v("us", r.us);
}

template <Of<PhaseSummary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("count", r.count);
  v("min", r.min);
  v("mean", r.mean);
  v("p50", r.p50);
  v("p95", r.p95);
  v("p99", r.p99);
  v("max", r.max);
  v("ci", r.ci);
  v("trial_spread", r.trial_spread);
  v("spectrum", r.spectrum);
  v("variance", r.variance);
}

template <Of<TrialCounts> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("planned", r.planned);
  v("done", r.done);
  v("valid", r.valid);
}

template <Of<WireBytes> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("handshake_written", r.handshake_written);
  v("handshake_read", r.handshake_read);
  v("client_hello", r.client_hello);
  v("server_hello", r.server_hello);
  v("certificate", r.certificate);
  v("certificate_verify", r.certificate_verify);
  v("server_first_flight", r.server_first_flight);
  v("server_first_flight_segments", r.server_first_flight_segments);
}

template <Of<CpuCosts> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("server_us_per_handshake", r.server_us_per_handshake);
  v("client_us_per_connection", r.client_us_per_connection);
  v("floor_server_us", r.floor_server_us);
  v("floor_client_us", r.floor_client_us);
  v("server_floor_ratio", r.server_floor_ratio);
  v("client_floor_ratio", r.client_floor_ratio);
}

template <Of<OutlierSummary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("trial", r.trial);
  v("seq", r.seq);
  v("phase", r.phase);
  v("statistic", r.statistic);
  v("value", r.value);
  v("others_median", r.others_median);
  v("reason", r.reason);
}

template <Of<ArmSummary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("id", r.id);
  v("label", r.label);
  v("factors", r.factors);
  v("rtt_ms", r.rtt_ms);
  v("payload_bytes", r.payload_bytes);
  v("rate", r.rate);
  v("status", r.status);
  v("failure", r.failure);
  v("trials", r.trials);
  v("from_invalid_trials", r.from_invalid_trials);
  v("connections", r.connections);
  v("errors", r.errors);
  v("phases", r.phases);
  v("bytes", r.bytes);
  v("cpu", r.cpu);
  v("outliers", r.outliers);
  v("sites", r.sites);
}

template <Of<SitePhase> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("count", r.count);
  v("mean", r.mean);
  v("p50", r.p50);
  v("p95", r.p95);
  v("p99", r.p99);
}

template <Of<SiteSummary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("site", r.site);
  v("name", r.name);
  v("rtt_ms", r.rtt_ms);
  v("connections", r.connections);
  v("errors", r.errors);
  v("connect", r.connect);
  v("handshake", r.handshake);
  v("ttfb", r.ttfb);
  v("total", r.total);
  v("connect_round_trips", r.connect_round_trips);
  v("handshake_round_trips", r.handshake_round_trips);
}

template <Of<Difference> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("estimate", r.estimate);
  v("lo", r.lo);
  v("hi", r.hi);
  v("detectable", r.detectable);
  v("verdict", r.verdict);
  v("replicates", r.replicates);
  v("plan", r.plan);
}

template <Of<Comparison> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("phase", r.phase);
  v("from_invalid_trials", r.from_invalid_trials);
  v("factor", r.factor);
  v("baseline", r.baseline);
  v("arm", r.arm);
  v("from", r.from);
  v("to", r.to);
  v("diffs", r.diffs);
  v("control", r.control);
}

template <Of<ServerCpuSummary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("mean", r.mean);
  v("ci", r.ci);
  v("per_trial", r.per_trial);
}

template <Of<Estimate> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("estimate", r.estimate);
  v("ci", r.ci);
}

template <Of<MoreCpu> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("estimate", r.estimate);
  v("ci", r.ci);
  v("paired_blocks", r.paired_blocks);
}

template <Of<CapacityArmSummary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("arm", r.arm);
  v("label", r.label);
  v("target", r.target);
  v("trials", r.trials);
  v("from_invalid_trials", r.from_invalid_trials);
  v("server_us_per_handshake", r.server_us_per_handshake);
  v("handshakes_per_core_s", r.handshakes_per_core_s);
  v("server_busy", r.server_busy);
  v("floor_server_us", r.floor_server_us);
  v("floor_ratio", r.floor_ratio);
  v("baseline", r.baseline);
  v("baseline_label", r.baseline_label);
  v("more_cpu_pct", r.more_cpu_pct);
  v("line", r.line);
}

template <Of<CapacitySummary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("basis", r.basis);
  v("confidence", r.confidence);
  v("arms", r.arms);
}

template <Of<TrialSummary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("arm", r.arm);
  v("index", r.index);
  v("block", r.block);
  v("seq", r.seq);
  v("valid", r.valid);
  v("interrupted", r.interrupted);
  v("reasons", r.reasons);
  v("started", r.started);
  v("handshake_p50", r.handshake_p50);
  v("handshake_p99", r.handshake_p99);
  v("server_cpu_us_per_handshake", r.server_cpu_us_per_handshake);
  v("build", r.build);
}

template <Of<Summary> R, class Visit>
void Fields(R& r, Visit&& v) {
  v("schema", r.schema);
  v("run", r.run);
  v("factors", r.factors);
  v("arms", r.arms);
  v("comparisons", r.comparisons);
  v("capacity", r.capacity);
  v("trials", r.trials);
  v("stop", r.stop);
}

// AddedInSchemaTwo: keys a schema-1 document lacks; the reader leaves them at their defaults
// there (and "sites", absent for an arm on a network of one site, in either schema).
// "stop" and a trial's "build" came later within schema 2: absent in the documents before.
inline bool AddedInSchemaTwo(std::string_view key) {
  return key == "replicate" || key == "resolve_pct" || key == "variance" || key == "replicates" ||
         key == "plan" || key == "control" || key == "stop" || key == "build";
}

// Record: a type with a field list above (the rest — Bounds, the phases — have their own form).
struct AnyField {
  template <class Member>
  void operator()(const char*, Member&) const {}
};
template <class T>
concept Record = requires(T& r) {
  Fields(r, AnyField{});
};

}  // namespace pqc::report
