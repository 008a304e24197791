// trial_record — one trial as the results database stores it, typed end to end: the runner
// and merge fill a TrialRecord, RunWriter writes it and ReadRun gives the same type back.
// Each record below has one field list (core/json_fields.h for the JSON columns, TrialColumns
// for the table's columns), walked by both the writer and the reader: adding a field is one
// line in its list (plus a column in schema.cc when it is a column of its own).
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/json_fields.h"
#include "link/mover_stats.h"
#include "records/summary.h"
#include "records/summary_fields.h"

namespace pqc::results {

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

// BuildRecord: the binary that measured a trial, in a study whose arms are builds
// (scenario/builds.h): its name there, its absolute path and SHA-256, and the OpenSSL and
// commit it runs.
struct BuildRecord {
  std::string name, exe, sha256, openssl_version, git_commit;
};

template <class R, class V>
requires json_fields::Of<R, BuildRecord>
void Fields(R& r, V& v) {
  v("name", r.name);
  v("exe", r.exe);
  v("sha256", r.sha256);
  v("openssl_version", r.openssl_version);
  v("git_commit", r.git_commit);
}

// TargetRecord: the server's side of a trial (target_json). The CPU is the server processes'
// own (wait4); a follower shard records only who ran the target, and a target that did not
// stop cleanly only why.
struct TargetRecord {
  double cpu_user_s = kNotMeasured, cpu_sys_s = kNotMeasured, wall_s = kNotMeasured;
  std::optional<uint64_t> handshakes;  // when the target counts them (embedded: yes)
  std::string log;                     // its log, kept with the results
  nlohmann::json details;              // the target's own statistics (embedded: ServerStats)
  std::string error;                   // why it did not stop cleanly ("" = it did)
  std::string run_by;                  // "shard 0" on a follower shard ("" = this shard)
  // From the target's start until it accepted connections (seconds): a trial that began late
  // or a target slow to come up (nginx's workers, a provider's self-test) shows here.
  double ready_s = kNotMeasured;
  // build: what measured the trial when the study's arms are builds (none otherwise: the run's
  // facts name the one binary).
  std::optional<BuildRecord> build;
};

template <class R, class V>
requires json_fields::Of<R, TargetRecord>
void Fields(R& r, V& v) {
  v("cpu_user_s", r.cpu_user_s);
  v("cpu_sys_s", r.cpu_sys_s);
  v("wall_s", r.wall_s);
  v("handshakes", r.handshakes);
  v("log", r.log);
  v("details", r.details);
  v("error", r.error);
  v("run_by", r.run_by);
  v("ready_s", r.ready_s);
  v("build", r.build);
}

// SiteLinkRecord: one client site's wire, in a network of several.
struct SiteLinkRecord {
  link::MoverStats stats;
  std::string site, describe;
};

template <class R, class V>
requires json_fields::Of<R, SiteLinkRecord>
void Fields(R& r, V& v) {
  Fields(r.stats, v);  // the counters at the top level, beside the site's name
  v("site", r.site);
  v("describe", r.describe);
}

// LinkRecord: the emulated link's own accounting during the trial (link_json; none on
// loopback). `sites` only in a network of several sites.
struct LinkRecord {
  link::MoverStats stats;  // every site together
  std::string profile, describe;
  std::vector<SiteLinkRecord> sites;
};

template <class R, class V>
requires json_fields::Of<R, LinkRecord>
void Fields(R& r, V& v) {
  Fields(r.stats, v);
  v("profile", r.profile);
  v("describe", r.describe);
  v("sites", r.sites);
}

// ShardView: in a merged run, one shard's own view of the trial (shards_json).
struct ShardView {
  uint32_t shard = 0;
  std::string host, source;
  bool valid = false;
  std::vector<std::string> reasons;
  uint64_t connections = 0;
  double client_cpu_s = 0;
  int64_t measure_start_unix_ns = 0;
  int64_t clock_offset_ns = 0;     // its clock minus shard 0's
  int64_t start_skew_ns = 0;       // its measured phase's start minus shard 0's
  int64_t timestamp_shift_ns = 0;  // added to its records' timestamps in the merged run
};

template <class R, class V>
requires json_fields::Of<R, ShardView>
void Fields(R& r, V& v) {
  v("shard", r.shard);
  v("host", r.host);
  v("source", r.source);
  v("valid", r.valid);
  v("reasons", r.reasons);
  v("connections", r.connections);
  v("client_cpu_s", r.client_cpu_s);
  v("measure_start_unix_ns", r.measure_start_unix_ns);
  v("clock_offset_ns", r.clock_offset_ns);
  v("start_skew_ns", r.start_skew_ns);
  v("timestamp_shift_ns", r.timestamp_shift_ns);
}

// TrialRecord: one finished trial.
struct TrialRecord {
  // id: 0 = the next free one when written; else this id (a merge copies the trial's records
  // under it while it still computes the row).
  int64_t id = 0;
  uint32_t arm = 0, block = 0, seq = 0;
  std::string started, ended;  // UTC, ISO 8601
  bool valid = false;
  std::vector<std::string> reasons;
  bool interrupted = false;
  LoadSummary summary;  // the load generator's summary of the trial
  TargetRecord target;
  std::optional<LinkRecord> link;  // none on loopback
  std::optional<double> server_cpu_s;
  std::optional<uint64_t> server_handshakes;
  double client_cpu_s = 0;
  // The load's time base: a CLOCK_MONOTONIC instant and the UTC ns it was read with, and the
  // measured phase's bounds on the monotonic clock.
  int64_t mono_anchor_ns = 0, wall_anchor_ns = 0, measure_start_ns = 0, measure_end_ns = 0;
  std::vector<ShardView> shards;  // a merged run's per-shard views (empty otherwise)

  // The measured phase's start and end in UTC ns.
  int64_t MeasureStartUnixNs() const {
    return wall_anchor_ns + (measure_start_ns - mono_anchor_ns);
  }
  int64_t MeasureEndUnixNs() const { return wall_anchor_ns + (measure_end_ns - mono_anchor_ns); }
};

// TrialColumns: the `trials` table's columns in order, each with the member it holds and the
// schema version that added it (older files read the member's default). A member that is a
// record, a list or optional record is stored as its JSON text (json_fields).
template <class R, class V>
requires json_fields::Of<R, TrialRecord>
void TrialColumns(R& r, V& v) {
  v("id", r.id, 1);
  v("arm_id", r.arm, 1);
  v("block", r.block, 1);
  v("seq", r.seq, 1);
  v("started", r.started, 1);
  v("ended", r.ended, 1);
  v("valid", r.valid, 1);
  v("reasons_json", r.reasons, 1);
  v("interrupted", r.interrupted, 1);
  v("summary_json", r.summary, 1);
  v("target_json", r.target, 1);
  v("link_json", r.link, 1);
  v("server_cpu_s", r.server_cpu_s, 1);
  v("server_handshakes", r.server_handshakes, 1);
  v("client_cpu_s", r.client_cpu_s, 1);
  v("mono_anchor_ns", r.mono_anchor_ns, 1);
  v("wall_anchor_ns", r.wall_anchor_ns, 1);
  v("measure_start_ns", r.measure_start_ns, 1);
  v("measure_end_ns", r.measure_end_ns, 1);
  v("shards_json", r.shards, 5);
}

}  // namespace pqc::results
