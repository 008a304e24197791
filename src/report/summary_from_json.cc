// summary_from_json.cc — the reader half of summary_json.h. Every field of the schema must be
// present with its documented type (a number that could not be computed is null, so absent
// means the document is not this schema); keys it does not know are ignored. A bad field is
// reported with its path, which the nested reads build as the error travels up.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "report/summary_json.h"

namespace pqc::report {
namespace {

using nlohmann::ordered_json;

// FormatError: a malformed field; `path` grows from the field outwards.
class FormatError : public std::runtime_error {
 public:
  explicit FormatError(std::string problem) : std::runtime_error(problem), problem_(problem) {}
  void Within(std::string_view step) {
    path_ = path_.empty() || path_.front() == '[' ? std::string(step) + path_
                                                  : std::string(step) + "." + path_;
  }
  std::string Message() const { return path_.empty() ? problem_ : path_ + ": " + problem_; }

 private:
  std::string problem_, path_;
};

[[noreturn]] void Fail(std::string_view expected, const ordered_json& v) {
  throw FormatError(fmt::format("expected {}, got {}", expected, v.type_name()));
}

void RequireObject(const ordered_json& j) {
  if (!j.is_object()) Fail("an object", j);
}

// Step: `read()`, with `step` put in front of the path of any error it raises.
template <class F>
void Step(std::string_view step, F&& read) {
  try {
    read();
  } catch (FormatError& e) {
    e.Within(step);
    throw;
  }
}

void ReadValue(const ordered_json& v, double& out) {
  if (!v.is_number()) Fail("a number", v);
  out = v.get<double>();
}
void ReadValue(const ordered_json& v, uint64_t& out) {
  if (!v.is_number_unsigned()) Fail("a non-negative integer", v);
  out = v.get<uint64_t>();
}
void ReadValue(const ordered_json& v, int64_t& out) {
  if (!v.is_number_integer()) Fail("an integer", v);
  out = v.get<int64_t>();
}
void ReadValue(const ordered_json& v, bool& out) {
  if (!v.is_boolean()) Fail("true or false", v);
  out = v.get<bool>();
}
void ReadValue(const ordered_json& v, std::string& out) {
  if (!v.is_string()) Fail("a string", v);
  out = v.get<std::string>();
}
// The arm's echo of its settings: any object (its keys belong to the scenario).
void ReadValue(const ordered_json& v, ordered_json& out) {
  RequireObject(v);
  out = v;
}
// Phases: keyed by phase name, only those with samples.
void ReadValue(const ordered_json& v,
               std::array<std::optional<PhaseSummary>, kAllPhases.size()>& out) {
  RequireObject(v);
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& name = it.key();
    const ordered_json& value = it.value();
    const auto* p = std::find_if(kAllPhases.begin(), kAllPhases.end(),
                                 [&](Phase phase) { return PhaseName(phase) == name; });
    Step(name, [&] {
      if (p == kAllPhases.end()) throw FormatError("not a phase");
      from_json(value, out[static_cast<size_t>(*p)].emplace());
    });
  }
}
template <class T>
void ReadValue(const ordered_json& v, T& out) {
  from_json(v, out);  // a record of summary.h
}
// A nullable field: null, or a value of its type.
template <class T>
void ReadValue(const ordered_json& v, std::optional<T>& out) {
  if (v.is_null()) {
    out.reset();
    return;
  }
  ReadValue(v, out.emplace());
}
template <class T>
void ReadValue(const ordered_json& v, std::vector<T>& out) {
  if (!v.is_array()) Fail("an array", v);
  out.assign(v.size(), T{});
  for (size_t i = 0; i < v.size(); ++i)
    Step(fmt::format("[{}]", i), [&] { ReadValue(v[i], out[i]); });
}

// Get: object[key] into `out`; a missing key or a bad value fails with the key in its path.
template <class T>
void Get(const ordered_json& j, std::string_view key, T& out) {
  Step(key, [&] {
    auto it = j.find(key);
    if (it == j.end()) throw FormatError("missing");
    ReadValue(*it, out);
  });
}

}  // namespace

void from_json(const ordered_json& j, Bounds& b) {
  if (!j.is_array() || j.size() != 2) Fail("an interval [lo, hi]", j);
  std::optional<double>* ends[] = {&b.lo, &b.hi};
  for (size_t i = 0; i < 2; ++i) Step(fmt::format("[{}]", i), [&] { ReadValue(j[i], *ends[i]); });
}

void from_json(const ordered_json& j, RunFacts& r) {
  RequireObject(j);
  Get(j, "dir", r.dir);
  Get(j, "scenario", r.scenario);
  Get(j, "scenario_file", r.scenario_file);
  Get(j, "title", r.title);
  Get(j, "tool_version", r.tool_version);
  Get(j, "git_commit", r.git_commit);
  Get(j, "openssl_version", r.openssl_version);
  Get(j, "cpu_model", r.cpu_model);
  Get(j, "cores", r.cores);
  Get(j, "kernel", r.kernel);
  Get(j, "hostname", r.hostname);
  Get(j, "started", r.started);
  Get(j, "ended", r.ended);
  Get(j, "complete", r.complete);
  Get(j, "target", r.target);
  Get(j, "network", r.network);
  Get(j, "seed", r.seed);
  Get(j, "full", r.full);
  Get(j, "trials_planned", r.trials_planned);
  Get(j, "trials_done", r.trials_done);
  Get(j, "confidence", r.confidence);
  Get(j, "resamples", r.resamples);
}

void from_json(const ordered_json& j, StatisticBounds& b) {
  RequireObject(j);
  Get(j, "mean", b.mean);
  Get(j, "p50", b.p50);
  Get(j, "p95", b.p95);
  Get(j, "p99", b.p99);
}

void from_json(const ordered_json& j, SpreadBounds& b) {
  RequireObject(j);
  Get(j, "p50", b.p50);
  Get(j, "p99", b.p99);
}

void from_json(const ordered_json& j, SpectrumPoint& p) {
  RequireObject(j);
  Get(j, "q", p.q);
  Get(j, "us", p.us);
}

void from_json(const ordered_json& j, PhaseSummary& p) {
  RequireObject(j);
  Get(j, "count", p.count);
  Get(j, "min", p.min);
  Get(j, "mean", p.mean);
  Get(j, "p50", p.p50);
  Get(j, "p95", p.p95);
  Get(j, "p99", p.p99);
  Get(j, "max", p.max);
  Get(j, "ci", p.ci);
  Get(j, "trial_spread", p.trial_spread);
  Get(j, "spectrum", p.spectrum);
}

void from_json(const ordered_json& j, TrialCounts& t) {
  RequireObject(j);
  Get(j, "planned", t.planned);
  Get(j, "done", t.done);
  Get(j, "valid", t.valid);
}

void from_json(const ordered_json& j, WireBytes& b) {
  RequireObject(j);
  Get(j, "handshake_written", b.handshake_written);
  Get(j, "handshake_read", b.handshake_read);
  Get(j, "client_hello", b.client_hello);
  Get(j, "server_hello", b.server_hello);
  Get(j, "certificate", b.certificate);
  Get(j, "certificate_verify", b.certificate_verify);
  Get(j, "server_first_flight", b.server_first_flight);
  Get(j, "server_first_flight_segments", b.server_first_flight_segments);
}

void from_json(const ordered_json& j, CpuCosts& c) {
  RequireObject(j);
  Get(j, "server_us_per_handshake", c.server_us_per_handshake);
  Get(j, "client_us_per_connection", c.client_us_per_connection);
  Get(j, "floor_server_us", c.floor_server_us);
  Get(j, "floor_client_us", c.floor_client_us);
  Get(j, "server_floor_ratio", c.server_floor_ratio);
  Get(j, "client_floor_ratio", c.client_floor_ratio);
}

void from_json(const ordered_json& j, OutlierSummary& o) {
  RequireObject(j);
  Get(j, "trial", o.trial);
  Get(j, "seq", o.seq);
  Get(j, "phase", o.phase);
  Get(j, "statistic", o.statistic);
  Get(j, "value", o.value);
  Get(j, "others_median", o.others_median);
  Get(j, "reason", o.reason);
}

void from_json(const ordered_json& j, ArmSummary& a) {
  RequireObject(j);
  Get(j, "id", a.id);
  Get(j, "label", a.label);
  Get(j, "factors", a.factors);
  Get(j, "rtt_ms", a.rtt_ms);
  Get(j, "payload_bytes", a.payload_bytes);
  Get(j, "rate", a.rate);
  Get(j, "status", a.status);
  Get(j, "failure", a.failure);
  Get(j, "trials", a.trials);
  Get(j, "from_invalid_trials", a.from_invalid_trials);
  Get(j, "connections", a.connections);
  Get(j, "errors", a.errors);
  Get(j, "phases", a.phases);
  Get(j, "bytes", a.bytes);
  Get(j, "cpu", a.cpu);
  Get(j, "outliers", a.outliers);
}

void from_json(const ordered_json& j, Difference& d) {
  RequireObject(j);
  Get(j, "estimate", d.estimate);
  Get(j, "lo", d.lo);
  Get(j, "hi", d.hi);
  Get(j, "detectable", d.detectable);
  Get(j, "verdict", d.verdict);
}

void from_json(const ordered_json& j, StatisticDifferences& d) {
  RequireObject(j);
  Get(j, "mean", d.mean);
  Get(j, "p50", d.p50);
  Get(j, "p95", d.p95);
  Get(j, "p99", d.p99);
}

void from_json(const ordered_json& j, Comparison& c) {
  RequireObject(j);
  Get(j, "phase", c.phase);
  Get(j, "from_invalid_trials", c.from_invalid_trials);
  Get(j, "factor", c.factor);
  Get(j, "baseline", c.baseline);
  Get(j, "arm", c.arm);
  Get(j, "from", c.from);
  Get(j, "to", c.to);
  Get(j, "diffs", c.diffs);
}

void from_json(const ordered_json& j, ServerCpuSummary& s) {
  RequireObject(j);
  Get(j, "mean", s.mean);
  Get(j, "ci", s.ci);
  Get(j, "per_trial", s.per_trial);
}

void from_json(const ordered_json& j, Estimate& e) {
  RequireObject(j);
  Get(j, "estimate", e.estimate);
  Get(j, "ci", e.ci);
}

void from_json(const ordered_json& j, MoreCpu& m) {
  RequireObject(j);
  Get(j, "estimate", m.estimate);
  Get(j, "ci", m.ci);
  Get(j, "paired_blocks", m.paired_blocks);
}

void from_json(const ordered_json& j, CapacityArmSummary& a) {
  RequireObject(j);
  Get(j, "arm", a.arm);
  Get(j, "label", a.label);
  Get(j, "target", a.target);
  Get(j, "trials", a.trials);
  Get(j, "from_invalid_trials", a.from_invalid_trials);
  Get(j, "server_us_per_handshake", a.server_us_per_handshake);
  Get(j, "handshakes_per_core_s", a.handshakes_per_core_s);
  Get(j, "server_busy", a.server_busy);
  Get(j, "floor_server_us", a.floor_server_us);
  Get(j, "floor_ratio", a.floor_ratio);
  Get(j, "baseline", a.baseline);
  Get(j, "baseline_label", a.baseline_label);
  Get(j, "more_cpu_pct", a.more_cpu_pct);
  Get(j, "line", a.line);
}

void from_json(const ordered_json& j, CapacitySummary& c) {
  RequireObject(j);
  Get(j, "basis", c.basis);
  Get(j, "confidence", c.confidence);
  Get(j, "arms", c.arms);
}

void from_json(const ordered_json& j, TrialSummary& t) {
  RequireObject(j);
  Get(j, "arm", t.arm);
  Get(j, "index", t.index);
  Get(j, "block", t.block);
  Get(j, "seq", t.seq);
  Get(j, "valid", t.valid);
  Get(j, "interrupted", t.interrupted);
  Get(j, "reasons", t.reasons);
  Get(j, "started", t.started);
  Get(j, "handshake_p50", t.handshake_p50);
  Get(j, "handshake_p99", t.handshake_p99);
  Get(j, "server_cpu_us_per_handshake", t.server_cpu_us_per_handshake);
}

void from_json(const ordered_json& j, Summary& s) {
  RequireObject(j);
  Get(j, "schema", s.schema);
  Get(j, "run", s.run);
  Get(j, "factors", s.factors);
  Get(j, "arms", s.arms);
  Get(j, "comparisons", s.comparisons);
  Get(j, "capacity", s.capacity);
  Get(j, "trials", s.trials);
}

Result<Summary> ReadSummary(const ordered_json& doc) {
  const auto schema = doc.is_object() ? doc.find("schema") : doc.end();
  const std::string name = doc.is_object() && schema != doc.end() && schema->is_string()
                               ? schema->get<std::string>()
                               : "";
  if (name != kSummarySchema) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("not a pqc-bench summary: \"schema\" is \"{}\", expected \"{}\"",
                                 name, kSummarySchema));
  }
  const auto run = doc.find("run");
  const auto arms = doc.find("arms");
  if (run == doc.end() || !run->is_object() || arms == doc.end() || !arms->is_array()) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("the summary needs a \"run\" object and an \"arms\" array "
                                 "(schema {})",
                                 kSummarySchema));
  }
  try {
    Summary s;
    from_json(doc, s);
    return s;
  } catch (const FormatError& e) {
    return MakeError(ErrorKind::kConfig, fmt::format("not a valid pqc-bench summary ({}): {}",
                                                     kSummarySchema, e.Message()));
  } catch (const std::exception& e) {  // nlohmann's, or memory: still a message, not a crash
    return MakeError(ErrorKind::kConfig, fmt::format("cannot read the summary: {}", e.what()));
  }
}

Result<Summary> ParseSummary(std::string_view text) {
  ordered_json doc = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return MakeError(ErrorKind::kConfig, "the summary is not valid JSON");
  return ReadSummary(doc);
}

}  // namespace pqc::report
