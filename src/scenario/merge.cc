#include "scenario/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include "client/summary.h"
#include "client/summary_output.h"
#include "results/run_writer.h"
#include "scenario/arm_options.h"
#include "scenario/plan.h"
#include "scenario/run_facts.h"

namespace pqc::scenario {
namespace {

namespace fs = std::filesystem;

struct Shard {
  std::string source;
  results::Db db;
  results::StoredRun run;
  std::map<uint32_t, const results::StoredTrial*> by_seq;
  int64_t offset_ns = 0;  // shard 0's wall clock minus this shard's
};

// Counted: a stored count or time, 0 when the shard's summary did not have it (null).
double Counted(double v) {
  return std::isfinite(v) ? v : 0;
}

Error Refuse(std::string message) {
  return MakeError(ErrorKind::kConfig, std::move(message) +
                                           " (merge takes the run directories of one sharded "
                                           "study, one per shard)");
}

// CheckAlike: every shard ran the same study with the same build, and together they are
// shards 0..N-1 of N, each once. The first difference is named with both sources.
Status CheckAlike(const std::vector<Shard>& shards) {
  const results::RunInfo& lead = shards.front().run.info;
  const std::string& first = shards.front().source;
  for (const Shard& s : shards) {
    const results::RunInfo& i = s.run.info;
    if (i.merged) return Refuse(fmt::format("{} is a merged database already", s.source));
    if (i.shard.count != shards.size()) {
      return Refuse(fmt::format("{} is shard {} of {}, but {} database(s) were given", s.source,
                                i.shard.index, i.shard.count, shards.size()));
    }
    auto differ = [&](std::string_view what, const std::string& a, const std::string& b) {
      return Refuse(fmt::format("{} and {} differ in {}: '{}' vs '{}'", first, s.source, what,
                                a.substr(0, 60), b.substr(0, 60)));
    };
    if (i.tool_version != lead.tool_version || i.git_commit != lead.git_commit) {
      return differ("the pqc-bench that ran them", lead.tool_version + " " + lead.git_commit,
                    i.tool_version + " " + i.git_commit);
    }
    if (i.scenario_text != lead.scenario_text) {
      return differ("the scenario text", lead.scenario_file, i.scenario_file);
    }
    const std::string options = json_fields::Writer::Value(i.options).dump();
    const std::string lead_options = json_fields::Writer::Value(lead.options).dump();
    if (options != lead_options) return differ("the run's options", lead_options, options);
    if (i.seed != lead.seed) {
      return differ("the seed", std::to_string(lead.seed), std::to_string(i.seed));
    }
    const auto& a = shards.front().run.arms;
    const auto& b = s.run.arms;
    if (a.size() != b.size()) {
      return differ("their arms", fmt::format("{} arms", a.size()), fmt::format("{}", b.size()));
    }
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k].label != b[k].label || a[k].settings != b[k].settings) {
        return differ(fmt::format("arm {}", a[k].id), a[k].label, b[k].label);
      }
    }
    for (const auto& [seq, t] : s.by_seq) {
      auto it = shards.front().by_seq.find(seq);
      if (it != shards.front().by_seq.end() &&
          (it->second->arm != t->arm || it->second->block != t->block)) {
        return differ(fmt::format("the plan's trial {}", seq),
                      fmt::format("arm {} block {}", it->second->arm, it->second->block),
                      fmt::format("arm {} block {}", t->arm, t->block));
      }
    }
  }
  return {};
}

// ShiftNs: what to add to a shard's CLOCK_MONOTONIC timestamps of one trial to put them on
// shard 0's. Zero when both read the same clock (one kernel, one boot); else through the wall
// clocks of both trials' anchors and the shard's measured offset.
int64_t ShiftNs(const Shard& s, const results::StoredTrial& t, const Shard& lead,
                const results::StoredTrial& t0) {
  const std::string a = lead.run.info.shard_facts ? lead.run.info.shard_facts->boot_id : "";
  const std::string b = s.run.info.shard_facts ? s.run.info.shard_facts->boot_id : "";
  if (!a.empty() && a == b) return 0;
  return (t.wall_anchor_ns - t.mono_anchor_ns) + s.offset_ns -
         (t0.wall_anchor_ns - t0.mono_anchor_ns);
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

// The same shift in SQL, for the rows copied as they are (none for a shard on shard 0's clock,
// which is every shard on one machine: a CASE per timestamp is a tenth of a copy's time).
std::string Shifted(std::string_view column, int64_t shift) {
  if (shift == 0) return std::string(column);
  return fmt::format("CASE {0} WHEN 0 THEN 0 ELSE {0} + ?2 END", column);
}

// CopyPlan: where one shard's rows of a trial go in the merged trial.
struct CopyPlan {
  std::string file;  // the shard's database
  int64_t from = 0;  // its trial id
  int64_t id_offset = 0, request_offset = 0;
  int64_t shift = 0;  // added to its timestamps (ShiftNs)
  uint32_t shard = 0;
  bool has_site = false;  // schema 6 or newer
};

// Extent: what a shard's trial occupies: its next free connection id, its request count.
struct Extent {
  int64_t next_id = 0, requests = 0;
};
Result<Extent> TrialExtent(results::Db& db, int64_t trial) {
  Extent e;
  for (auto [sql, out] :
       {std::pair{"SELECT coalesce(max(id) + 1, 0) FROM connections WHERE "
                  "trial_id = ?1",
                  &e.next_id},
        std::pair{"SELECT count(*) FROM requests WHERE trial_id = ?1", &e.requests}}) {
    auto q = db.Prepare(sql);
    if (!q) return q.error();
    q->Bind(1, trial);
    if (auto row = q->Step(); !row || !*row) {
      return MakeError(ErrorKind::kIo,
                       fmt::format("merge: cannot read {}'s trial {}", db.path(), trial));
    }
    *out = q->Int(0);
  }
  return e;
}

Result<uint64_t> CountRows(results::Db& db, int64_t trial) {
  auto q = db.Prepare("SELECT count(*) FROM connections WHERE trial_id = ?1");
  if (!q) return q.error();
  q->Bind(1, trial);
  if (auto row = q->Step(); !row || !*row) {
    return MakeError(ErrorKind::kIo, "merge: cannot count the merged trial's connections");
  }
  return static_cast<uint64_t>(q->Int(0));
}

// CopyRecords: a shard's rows of one trial into the merged trial `to`, inside SQLite (no row
// is decoded and bound again: for millions of rows this is what keeps a merge to seconds),
// under connection ids after the previous shards', with their shard and shifted timestamps.
Status CopyRecords(results::Db& out, const CopyPlan& p, int64_t to) {
  auto path = out.Prepare("ATTACH DATABASE ?1 AS shard");
  if (!path) return path.error();
  path->Bind(1, p.file);
  if (Status st = path->Run(); !st) return st;
  const std::string conns = fmt::format(
      "INSERT INTO main.connections SELECT ?1, id + ?3, thread, mode, measured, offered_session, "
      "{}, {}, {}, {}, {}, first_request + ?5, request_count, handshake_bytes_written, "
      "handshake_bytes_read, client_hello_bytes, server_hello_bytes, certificate_bytes, "
      "certificate_verify_bytes, grp, signature_scheme, cipher, resumed, hrr, error, "
      "error_detail, handshake_segments_read, early_data, early_bytes, ?6, {} FROM "
      "shard.connections WHERE trial_id = ?4 ORDER BY id",
      Shifted("intended_start", p.shift), Shifted("actual_start", p.shift),
      Shifted("tcp_established", p.shift), Shifted("tls_done", p.shift), Shifted("closed", p.shift),
      p.has_site ? "site" : "0");
  const std::string reqs = fmt::format(
      "INSERT INTO main.requests SELECT ?1, conn_id + ?3, seq, {}, {}, {}, status, body_bytes "
      "FROM shard.requests WHERE trial_id = ?4 ORDER BY conn_id, seq",
      Shifted("sent", p.shift), Shifted("first_byte", p.shift), Shifted("last_byte", p.shift));
  Status st = out.Exec("BEGIN");
  for (const std::string* sql : {&conns, &reqs}) {
    if (!st) break;
    auto stmt = out.Prepare(*sql);
    if (!stmt) {
      st = stmt.error();
      break;
    }
    stmt->Bind(1, to);
    stmt->Bind(2, p.shift);
    stmt->Bind(3, p.id_offset);
    stmt->Bind(4, p.from);
    if (sql == &conns) {
      stmt->Bind(5, p.request_offset);
      stmt->Bind(6, int64_t{p.shard});
    }
    st = stmt->Run();
  }
  if (st) {
    st = out.Exec("COMMIT");
  } else {
    (void)out.Exec("ROLLBACK");  // the copy's error is the one to report
  }
  Status detached = out.Exec("DETACH DATABASE shard");
  return st ? detached : st;
}

// ArmLoadOptions: the arm's LoadOptions as every shard ran it (the whole arm's rate), for the
// statistics and validity checks of the union.
Result<std::vector<LoadOptions>> ArmLoadOptions(const results::RunInfo& info,
                                                const std::vector<results::StoredArm>& stored) {
  ParseOptions po;
  auto sc = StoredScenario(info, po);
  if (!sc) return sc.error();
  auto arms = ExpandArms(*sc);
  if (!arms) return arms.error();
  if (arms->size() != stored.size()) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("the stored scenario plans {} arms, the database holds {}",
                                 arms->size(), stored.size()));
  }
  std::vector<LoadOptions> out;
  for (const Arm& a : *arms) {
    auto addr = ParseAddress(ToolRunsServer(a.settings) ? "127.0.0.1:0" : a.settings.address);
    if (!addr) return addr.error();
    out.push_back(MakeLoadOptions(a.settings, *addr, 0));
  }
  return out;
}

struct MergedTrial {
  LoadResult load;
  std::vector<results::TrialRecords> records;   // own the strings the connections point to
  std::vector<uint64_t> connections, requests;  // per shard
  results::TrialRow row;
};

// ReadAll: every shard's records of trial `seq`, read side by side (one SQLite connection per
// shard), at most one reader per core but the copy's.
Result<std::vector<results::TrialRecords>> ReadAll(const std::vector<Shard*>& shards,
                                                   uint32_t seq) {
  std::vector<std::optional<Result<results::TrialRecords>>> got(shards.size());
  // One core is the copy's (MergeShards copies the trial's rows beside this): the readers
  // take the others, so that neither half waits for the other's CPU.
  const size_t width = std::max(2u, std::thread::hardware_concurrency()) - 1;
  for (size_t first = 0; first < shards.size(); first += width) {
    std::vector<std::thread> readers;
    for (size_t k = first; k < std::min(shards.size(), first + width); ++k) {
      readers.emplace_back([&, k] {
        got[k].emplace(results::ReadTrialRecords(shards[k]->db, shards[k]->by_seq.at(seq)->id));
      });
    }
    for (std::thread& t : readers) t.join();
  }
  std::vector<results::TrialRecords> out;
  for (auto& g : got) {
    if (!*g) return g->error();
    out.push_back(std::move(**g));
  }
  return out;
}

// MergeTrial: trial `seq` of the shards that stored it (`shards`, shard 0 first); the others,
// `missing`, ended during it or before (killed, lost): the merged trial keeps every connection
// that was stored and is invalid, naming them.
Result<MergedTrial> MergeTrial(const std::vector<Shard*>& shards,
                               const std::vector<uint32_t>& missing, uint32_t seq,
                               const LoadOptions& options) {
  MergedTrial m;
  const Shard& lead = *shards.front();
  const results::StoredTrial& t0 = *lead.by_seq.at(seq);
  const int64_t tolerance =
      lead.run.info.shard_facts.value_or(results::ShardFacts{}).max_start_late_ns;
  auto records = ReadAll(shards, seq);
  if (!records) return records.error();
  m.records = std::move(*records);
  m.load.options = options;
  m.load.threads = 0;
  std::vector<std::string> reasons;
  std::vector<results::ShardView> views;
  double cpu_wall = 0;
  size_t connections = 0, requests = 0;
  for (const results::TrialRecords& r : m.records) {
    connections += r.load.connections.size();
    requests += r.load.requests.size();
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
    Shard& s = *shards[k];
    const results::StoredTrial& t = *s.by_seq.at(seq);
    results::TrialRecords& rec = m.records[k];
    const int64_t d = ShiftNs(s, t, lead, t0);
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
    const uint32_t who = s.run.info.shard.index;
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
                     .host = s.run.info.hostname,
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
  for (const Shard* s : shards) row.ended = std::max(row.ended, s->by_seq.at(seq)->ended);
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

Result<std::vector<Shard>> OpenShards(const std::vector<std::string>& inputs) {
  std::vector<Shard> shards;
  for (const std::string& in : inputs) {
    // Merge reads every row of every shard (a damaged page is an error then): the length
    // check finds a truncated copy without reading every page once more first.
    auto db = results::OpenResults(in, results::Integrity::kLength);
    if (!db) return db.error();
    auto run = results::ReadRun(*db);
    if (!run) return run.error();
    shards.push_back({in, std::move(*db), std::move(*run), {}, 0});
  }
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) {
    return a.run.info.shard.index < b.run.info.shard.index;
  });
  for (size_t k = 0; k < shards.size(); ++k) {
    Shard& s = shards[k];
    if (s.run.info.shard.index != k) {
      if (k > 0 && s.run.info.shard.index == k - 1) {
        return Refuse(fmt::format("shard {} is given twice: {} and {}", k - 1, shards[k - 1].source,
                                  s.source));
      }
      return Refuse(fmt::format("shard {} of {} is missing", k, shards.size()));
    }
    for (const auto& t : s.run.trials) s.by_seq[t.seq] = &t;
    s.offset_ns = s.run.info.shard_facts ? s.run.info.shard_facts->clock_offset_ns : 0;
  }
  return shards;
}

}  // namespace

Result<MergeOutcome> MergeShards(const MergeOptions& o) {
  if (o.inputs.size() < 2) {
    return MakeError(
        ErrorKind::kUsage,
        fmt::format("merge: {} database given; give every shard's run directory", o.inputs.size()));
  }
  auto shards = OpenShards(o.inputs);
  if (!shards) return shards.error();
  if (Status st = CheckAlike(*shards); !st) return st.error();
  const Shard& lead = shards->front();
  auto options = ArmLoadOptions(lead.run.info, lead.run.arms);
  if (!options) return options.error();

  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  const std::string db_path = (fs::path(o.out_dir) / "results.sqlite").string();
  results::RunInfo info = lead.run.info;
  info.merged = true;
  info.shard = {0, static_cast<uint32_t>(shards->size())};
  results::ShardFacts& facts = info.shard_facts.emplace();
  for (const Shard& s : *shards) {
    facts.shards.push_back({.shard = s.run.info.shard.index,
                            .host = s.run.info.hostname,
                            .source = fs::absolute(s.source, ec).string(),
                            .started = s.run.info.started,
                            .complete = s.run.complete,
                            .facts = s.run.info.shard_facts.value_or(results::ShardFacts{})});
  }
  facts.max_start_late_ns =
      lead.run.info.shard_facts.value_or(results::ShardFacts{}).max_start_late_ns;
  std::vector<results::ArmRow> arms;
  for (const results::StoredArm& a : lead.run.arms) {
    arms.push_back({a.id, a.label, a.factors, a.settings, a.floor});
  }
  auto writer = results::RunWriter::Create(db_path, info, arms);
  if (!writer) return writer.error();
  // No journal: the merged file is made anew from inputs that stay as they are, so a merge cut
  // short loses nothing measured (its run is marked incomplete; merge again into a new
  // directory), and every row is written once instead of once to the WAL and again at its
  // checkpoint.
  // A large page cache: the copy appends millions of rows, and a page written out and read
  // back for the next row costs more than the memory (18 % of a copy's time here).
  if (Status st = writer->db().Exec(
          "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-1048576");
      !st) {
    return st.error();
  }
  for (const results::StoredArm& a : lead.run.arms) {
    if (a.status != results::ArmStatus::kFailed) continue;
    if (Status st = writer->MarkArmFailed(a.id, a.failure); !st) return st.error();
  }
  MergeOutcome out;
  out.dir = o.out_dir;
  out.shards = static_cast<uint32_t>(shards->size());
  out.complete = true;
  for (const Shard& s : *shards) out.complete = out.complete && s.run.complete;
  uint64_t kept = 0;  // connections held in out.loaded
  for (const results::StoredTrial& t0 : lead.run.trials) {
    // The shards that stored this trial (shard 0 always: the iteration is over its trials).
    std::vector<Shard*> present;
    std::vector<uint32_t> missing;
    for (Shard& s : *shards) {
      if (s.by_seq.count(t0.seq) > 0) {
        present.push_back(&s);
      } else {
        missing.push_back(s.run.info.shard.index);
      }
    }
    if (!missing.empty()) {
      fmt::print(o.log,
                 "trial {}: shard(s) {} stored no record of it: merged from the others, "
                 "invalid\n",
                 t0.seq, fmt::join(missing, ", "));
      out.complete = false;
    }
    // The merged trial takes shard 0's trial id, so that its rows can be copied (inside
    // SQLite, on the merged file's connection) while its statistics are computed from the
    // shards' rows read beside it (their own connections): the two halves of a merge's work
    // overlap instead of adding up.
    const int64_t id = t0.id;
    std::vector<CopyPlan> plans;
    int64_t id_offset = 0, request_offset = 0;
    for (Shard* shard : present) {
      Shard& s = *shard;
      const results::StoredTrial& t = *s.by_seq.at(t0.seq);
      auto extent = TrialExtent(s.db, t.id);
      if (!extent) return extent.error();
      plans.push_back({s.db.path(), t.id, id_offset, request_offset, ShiftNs(s, t, lead, t0),
                       s.run.info.shard.index, s.run.schema_version >= 6});
      // Ids after every id of the shards before (ids need not be dense; the reader orders).
      id_offset += extent->next_id;
      request_offset += extent->requests;
    }
    const Nanos start = MonotonicNow();
    Status copied;
    Nanos copy_end = 0;
    std::thread copier([&] {
      for (const CopyPlan& p : plans) {
        if (copied = CopyRecords(writer->db(), p, id); !copied) break;
      }
      copy_end = MonotonicNow();
    });
    auto m = MergeTrial(present, missing, t0.seq, (*options)[t0.arm - 1]);
    const Nanos read_end = MonotonicNow();
    copier.join();
    if (!m) return m.error();
    if (!copied) return copied.error();
    m->row.id = id;
    if (auto written = writer->WriteTrial(m->row); !written) return written.error();
    if (auto rows = CountRows(writer->db(), id); !rows || *rows != m->load.connections.size()) {
      return rows ? MakeError(ErrorKind::kIo,
                              fmt::format("merge: trial {}: {} connections copied, {} read", t0.seq,
                                          *rows, m->load.connections.size()))
                  : rows.error();
    }
    fmt::print(o.log,
               "trial {}: {} connections read and summarised in {:.2f} s, copied in {:.2f} s "
               "(side by side)\n",
               t0.seq, m->load.connections.size(), static_cast<double>(read_end - start) / 1e9,
               static_cast<double>(copy_end - start) / 1e9);
    const uint64_t n = m->load.connections.size();
    kept += n;
    if (kept <= kMaxKeptConnections) {
      out.loaded[id] =
          std::make_unique<MergedLoad>(MergedLoad{std::move(m->load), std::move(m->records)});
    }
    ++out.trials;
    out.connections += n;
    if (!m->row.valid) ++out.trials_invalid;
  }
  for (const Shard& s : *shards) {
    if (s.run.trials.size() != lead.run.trials.size()) out.complete = false;
  }
  std::string ended;
  for (const Shard& s : *shards) ended = std::max(ended, s.run.ended);
  if (Status st = writer->Finish(ended, out.complete); !st) return st.error();
  return out;
}

}  // namespace pqc::scenario
