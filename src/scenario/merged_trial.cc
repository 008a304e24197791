// merged_trial.cc — see the header.
#include "scenario/merged_trial.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "records/summary.h"

namespace pqc::scenario {
namespace {

// Counted: a stored count or time, 0 when the shard's summary did not have it (null).
double Counted(double v) {
  return std::isfinite(v) ? v : 0;
}

void Shift(ConnectionRecord& c, int64_t d) {
  for (Nanos* t :
       {&c.intended_start, &c.actual_start, &c.tcp_established, &c.tls_done, &c.closed}) {
    if (*t != 0) *t += d;  // 0: the phase was never reached
  }
}

void Shift(RequestRecord& r, int64_t d) {
  for (Nanos* t : {&r.sent, &r.first_byte, &r.last_byte}) {
    if (*t != 0) *t += d;
  }
}

}  // namespace

int64_t ShiftNs(const ShardTrial& s, const ShardTrial& lead) {
  if (!lead.boot_id.empty() && lead.boot_id == s.boot_id) return 0;
  const results::TrialRecord& t = *s.trial;
  const results::TrialRecord& t0 = *lead.trial;
  return (t.wall_anchor_ns - t.mono_anchor_ns) + s.offset_ns -
         (t0.wall_anchor_ns - t0.mono_anchor_ns);
}

MergedTrial CombineTrial(std::vector<ShardTrial> shards, const std::vector<uint32_t>& missing,
                         int64_t tolerance_ns, const LoadOptions& options) {
  MergedTrial m;
  const ShardTrial& lead = shards.front();
  const results::TrialRecord& t0 = *lead.trial;
  const int64_t tolerance = tolerance_ns;
  m.load.options = options;
  m.load.threads = 0;
  std::vector<std::string> reasons;
  std::vector<results::ShardView> views;
  double cpu_wall = 0;
  size_t connections = 0, requests = 0;
  for (ShardTrial& s : shards) {
    connections += s.records.load.connections.size();
    requests += s.records.load.requests.size();
    m.records.push_back(std::move(s.records));
  }
  m.load.connections.reserve(connections);
  m.load.requests.reserve(requests);
  for (uint32_t who : missing) {
    reasons.push_back(
        fmt::format("shard {} stored no record of this trial (it ended during "
                    "it or before: see its output); merged from the others",
                    who));
  }
  for (size_t k = 0; k < shards.size(); ++k) {
    const ShardTrial& s = shards[k];
    const results::TrialRecord& t = *s.trial;
    results::TrialRecords& rec = m.records[k];
    const int64_t d = ShiftNs(s, lead);
    const auto first_request = static_cast<uint32_t>(m.load.requests.size());
    m.connections.push_back(rec.load.connections.size());
    m.requests.push_back(rec.load.requests.size());
    for (RequestRecord& r : rec.load.requests) {
      Shift(r, d);
      m.load.requests.push_back(r);
    }
    for (ConnectionRecord& c : rec.load.connections) {
      Shift(c, d);
      c.first_request += first_request;
      m.load.connections.push_back(std::move(c));
    }
    rec.load.connections.clear();
    rec.load.requests.clear();
    // The load generators' own accounting, from each shard's stored summary.
    const LoadgenHealth& g = t.summary.loadgen;
    const double user = Counted(g.cpu_user_s), sys = Counted(g.cpu_sys_s);
    const double share = Counted(g.cpu_share);
    m.load.cpu_user_s += user;
    m.load.cpu_sys_s += sys;
    m.load.threads += g.threads;
    m.load.measured_wall_s = std::max(m.load.measured_wall_s, Counted(g.wall_s));
    if (share > 0 && g.threads > 0)
      cpu_wall = std::max(cpu_wall, (user + sys) / (share * g.threads));
    m.load.skipped += g.skipped;
    m.load.unfinished += g.unfinished;
    m.load.interrupted = m.load.interrupted || t.interrupted;
    // Did this shard measure the same interval as shard 0? Its start on shard 0's clock.
    const int64_t skew = (t.MeasureStartUnixNs() + s.offset_ns) - t0.MeasureStartUnixNs();
    const uint32_t who = s.shard;
    if (std::llabs(skew) > tolerance) {
      reasons.push_back(
          fmt::format("shard {} began its measured phase {:+.1f} ms from shard 0's "
                      "(limit ±{:.1f} ms): the shards did not load the target "
                      "together",
                      who, static_cast<double>(skew) / 1e6, static_cast<double>(tolerance) / 1e6));
    }
    for (const std::string& r : t.reasons) {
      if (who == 0 && r.ends_with(kFollowersInvalid)) continue;  // their own reasons follow
      reasons.push_back(fmt::format("shard {}: {}", who, r));
    }
    views.push_back({.shard = who,
                     .host = s.host,
                     .source = s.source,
                     .valid = t.valid,
                     .reasons = t.reasons,
                     .connections = m.connections[k],
                     .client_cpu_s = t.client_cpu_s,
                     .measure_start_unix_ns = t.MeasureStartUnixNs(),
                     .clock_offset_ns = s.offset_ns,
                     .start_skew_ns = skew,
                     .timestamp_shift_ns = d});
  }
  m.load.cpu_wall_s = cpu_wall;
  m.load.measure_start = t0.measure_start_ns;
  m.load.measure_end = t0.measure_end_ns;
  const LoadSummary summary = Summarize(m.load);
  results::TrialRow& row = m.row;
  row.arm = t0.arm;
  row.block = t0.block;
  row.seq = t0.seq;
  row.started = t0.started;
  row.ended = t0.ended;
  for (const ShardTrial& s : shards) row.ended = std::max(row.ended, s.trial->ended);
  row.reasons = summary.invalid_reasons;
  row.reasons.insert(row.reasons.end(), reasons.begin(), reasons.end());
  row.valid = row.reasons.empty();
  row.interrupted = m.load.interrupted;
  row.summary = summary;
  row.target = t0.target;
  row.link = t0.link;
  row.server_cpu_s = t0.server_cpu_s;
  row.server_handshakes = t0.server_handshakes;
  row.client_cpu_s = m.load.cpu_user_s + m.load.cpu_sys_s;
  row.mono_anchor_ns = t0.mono_anchor_ns;
  row.wall_anchor_ns = t0.wall_anchor_ns;
  row.measure_start_ns = t0.measure_start_ns;
  row.measure_end_ns = t0.measure_end_ns;
  row.shards = std::move(views);
  return m;
}

}  // namespace pqc::scenario
