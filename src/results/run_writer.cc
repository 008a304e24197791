#include "results/run_writer.h"

#include <fmt/format.h>

#include <filesystem>

#include "records/connection_columns.h"
#include "results/schema.h"
#include "results/trial_table.h"

namespace pqc::results {
namespace {

int64_t I(uint64_t v) {
  return static_cast<int64_t>(v);
}

// Insert: `INSERT INTO table VALUES (?1, …, ?n)` for a column list of n.
std::string Insert(std::string_view table, size_t n) {
  std::string params;
  for (size_t k = 1; k <= n; ++k) params += fmt::format("{}?{}", k == 1 ? "" : ", ", k);
  return fmt::format("INSERT INTO {} VALUES ({})", table, params);
}

// RowBinder: one row's columns bound in list order (connection_columns.h); the keys the
// store supplies come from `keys` by their role.
struct RowBinder {
  struct Keys {
    int64_t trial = 0, connection = 0, position = 0, shard = 0;
  };
  Stmt& s;
  Keys keys;
  int i = 0;
  void Key(const Column& c) {
    ++i;
    switch (c.role) {
      case ColumnRole::kTrial:
        s.Bind(i, keys.trial);
        break;
      case ColumnRole::kConnection:
        s.Bind(i, keys.connection);
        break;
      case ColumnRole::kShard:
        s.Bind(i, keys.shard);
        break;
      default:
        s.Bind(i, keys.position);
        break;
    }
  }
  template <class T>
  void operator()(const Column& /*c*/, const T& member) {
    ++i;
    if constexpr (std::is_same_v<T, std::string>) {
      s.BindStatic(i, std::string_view(member));
    } else if constexpr (std::is_same_v<T, const char*>) {
      s.BindStatic(i, std::string_view(member != nullptr ? member : ""));
    } else if constexpr (TextEnum<T>) {
      s.BindStatic(i, ColumnEnum<T>::Name(member));
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      s.Bind(i, I(member));
    } else {
      s.Bind(i, static_cast<int64_t>(member));
    }
  }
};

Status InsertRecords(Db& db, int64_t trial_id, const TrialRow& t) {
  const LoadResult& load = *t.load;
  auto conn = db.Prepare(Insert("connections", ConnectionColumnList().size()));
  if (!conn) return conn.error();
  auto req = db.Prepare(Insert("requests", RequestColumnList().size()));
  if (!req) return req.error();
  for (size_t k = 0; k < load.connections.size(); ++k) {
    const ConnectionRecord& c = load.connections[k];
    const int64_t shard = t.connection_shards != nullptr ? (*t.connection_shards)[k] : t.shard;
    RowBinder row{*conn, {.trial = trial_id, .connection = I(c.id), .shard = shard}};
    ConnectionColumns(c, row);
    if (Status st = conn->Run(); !st) return st;
    // A connection's requests are stored under it with their position, so that the reader
    // rebuilds LoadResult::requests in the same order without trusting first_request.
    const size_t end =
        std::min<size_t>(load.requests.size(), size_t{c.first_request} + c.request_count);
    for (size_t i = c.first_request; i < end; ++i) {
      RowBinder q{*req,
                  {.trial = trial_id,
                   .connection = I(c.id),
                   .position = static_cast<int64_t>(i - c.first_request)}};
      RequestColumns(load.requests[i], q);
      if (Status st = req->Run(); !st) return st;
    }
  }
  return {};
}

// Tune: WAL with synchronous=NORMAL (a commit is durable once the WAL is synced at
// checkpoints; a power loss may lose the last trial, never corrupt the file) and a page
// cache large enough that a million-row trial is not spilled to disk before its commit.
// No automatic checkpoint: a trial's commit then costs one sequential append to the WAL,
// and Finish() folds the WAL into the database once, after the last trial.
Status Tune(Db& db) {
  if (Status st = db.Exec("PRAGMA synchronous=NORMAL"); !st) return st;
  return db.Exec("PRAGMA wal_autocheckpoint=0");
}

}  // namespace

Result<RunWriter> RunWriter::Create(const std::string& path, const RunInfo& run,
                                    const std::vector<ArmRow>& arms) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    return MakeError(ErrorKind::kIo, fmt::format("{} exists already; a run never overwrites "
                                                 "results (use run --resume to continue it)",
                                                 path));
  }
  auto db = Db::Open(path, /*create=*/true, /*read_only=*/false);
  if (!db) return db.error();
  RunWriter w(std::make_unique<Db>(std::move(*db)));
  Db& d = *w.db_;
  // Before the first table: 16 KiB pages (fewer page splits for million-row trials) and WAL
  // (a reader may open the file while the run writes). Neither can change inside a
  // transaction, and SQLite answers a refused journal_mode with the old mode, not an error.
  if (Status st = d.Exec("PRAGMA page_size=16384"); !st) return st.error();
  auto mode = d.Prepare("PRAGMA journal_mode=WAL");
  if (!mode) return mode.error();
  if (auto row = mode->Step(); !row || !*row || mode->Text(0) != "wal") {
    return MakeError(ErrorKind::kIo, fmt::format("{}: cannot switch the database to WAL mode (is "
                                                 "the file system a network mount?)",
                                                 path));
  }
  mode->Reset();
  if (Status st = Tune(d); !st) return st.error();
  auto tx = Transaction::Begin(d);
  if (!tx) return tx.error();
  if (Status st = CreateSchema(d); !st) return st.error();
  auto ins = d.Prepare(
      "INSERT INTO run (id, scenario, scenario_file, scenario_text, title, options_json, "
      "tool_version, git_commit, openssl_version, cpu_model, cores, kernel, hostname, target, "
      "seed, trials_planned, started, speed_json, networks_json, shard_index, shard_count, "
      "shard_json) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
      "?16, ?17, ?18, ?19, ?20, ?21)");
  if (!ins) return ins.error();
  Stmt& s = *ins;
  s.Bind(1, run.scenario);
  s.Bind(2, run.scenario_file);
  s.Bind(3, run.scenario_text);
  s.Bind(4, run.title);
  s.Bind(5, json_fields::Writer::Value(run.options).dump());
  s.Bind(6, run.tool_version);
  s.Bind(7, run.git_commit);
  s.Bind(8, run.openssl_version);
  s.Bind(9, run.cpu_model);
  s.Bind(10, int64_t{run.cores});
  s.Bind(11, run.kernel);
  s.Bind(12, run.hostname);
  s.Bind(13, run.target);
  s.Bind(14, static_cast<int64_t>(run.seed));
  s.Bind(15, int64_t{run.trials_planned});
  s.Bind(16, run.started);
  if (run.speed.is_null()) {
    s.BindNull(17);
  } else {
    s.Bind(17, run.speed.dump());
  }
  if (run.networks.empty()) {
    s.BindNull(18);
  } else {
    s.Bind(18, json_fields::Writer::Value(run.networks).dump());
  }
  if (run.merged) {
    s.BindNull(19);
  } else {
    s.Bind(19, int64_t{run.shard.index});
  }
  s.Bind(20, int64_t{run.shard.count});
  if (!run.shard_facts) {
    s.BindNull(21);
  } else {
    s.Bind(21, json_fields::Writer::Value(*run.shard_facts).dump());
  }
  if (Status st = s.Run(); !st) return st.error();
  auto arm = d.Prepare(
      "INSERT INTO arms (id, label, factors_json, settings_json, floor_client_us, floor_server_us, "
      "floor_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!arm) return arm.error();
  for (const ArmRow& a : arms) {
    arm->Bind(1, int64_t{a.id});
    arm->Bind(2, a.label);
    arm->Bind(3, a.factors.dump());
    arm->Bind(4, a.settings.dump());
    if (a.floor) {
      arm->Bind(5, a.floor->client_us);
      arm->Bind(6, a.floor->server_us);
      arm->Bind(7, a.floor->detail.dump());
    } else {
      for (int i = 5; i <= 7; ++i) arm->BindNull(i);
    }
    if (Status st = arm->Run(); !st) return st.error();
  }
  if (Status st = tx->Commit(); !st) return st.error();
  return w;
}

Result<RunWriter> RunWriter::Reopen(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    return MakeError(ErrorKind::kIo, fmt::format("{} does not exist; --resume takes the "
                                                 "directory of an earlier run",
                                                 path));
  }
  auto db = Db::Open(path, /*create=*/false, /*read_only=*/false);
  if (!db) return db.error();
  RunWriter w(std::make_unique<Db>(std::move(*db)));
  auto version = SchemaVersion(*w.db_);
  if (!version) return version.error();
  if (*version < 3) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("{}: written by an older pqc-bench (results schema {}), whose "
                                 "tables lack columns this one writes; --resume needs schema 3 "
                                 "or newer: run the study again",
                                 path, *version));
  }
  if (Status st = Tune(*w.db_); !st) return st.error();
  // Each version's new columns, with the values every older row had: the per-connection
  // tables' from their column lists, the others' here.
  auto other_tables = [](int to) -> std::string_view {
    switch (to) {
      case 5:  // shards (a run of old was shard 0 of 1)
        return "ALTER TABLE run ADD COLUMN shard_index INTEGER;"
               "UPDATE run SET shard_index = 0;"
               "ALTER TABLE run ADD COLUMN shard_count INTEGER NOT NULL DEFAULT 1;"
               "ALTER TABLE run ADD COLUMN shard_json TEXT;"
               "ALTER TABLE trials ADD COLUMN shards_json TEXT;";
      case 8:  // how a study that stopped itself ended (a run of old was of fixed size)
        return "ALTER TABLE run ADD COLUMN stop_json TEXT;";
      default:
        return "";
    }
  };
  for (int v = *version; v < kSchemaVersion; ++v) {
    if (Status st = w.db_->Exec(fmt::format("BEGIN IMMEDIATE;{}{}UPDATE meta SET value = '{}' "
                                            "WHERE key = 'version';COMMIT",
                                            other_tables(v + 1), AddedColumns(v + 1), v + 1));
        !st) {
      (void)w.db_->Exec("ROLLBACK");
      return st.error();
    }
  }
  // An interrupted trial holds part of a schedule; it is kept until a resume replaces it.
  if (Status st = w.db_->Exec(
          "BEGIN IMMEDIATE;"
          "DELETE FROM requests WHERE trial_id IN (SELECT id FROM trials WHERE interrupted = 1);"
          "DELETE FROM connections WHERE trial_id IN (SELECT id FROM trials WHERE interrupted = 1);"
          "DELETE FROM trials WHERE interrupted = 1;"
          "UPDATE run SET complete = 0, ended = NULL;"
          "COMMIT");
      !st) {
    (void)w.db_->Exec("ROLLBACK");
    return st.error();
  }
  return w;
}

Result<int64_t> RunWriter::WriteTrial(const TrialRow& t) {
  auto tx = Transaction::Begin(*db_);
  if (!tx) return tx.error();
  TrialRecord record = t;
  if (t.load != nullptr) {
    record.measure_start_ns = t.load->measure_start;
    record.measure_end_ns = t.load->measure_end;
  }
  auto id = InsertTrial(*db_, record);
  if (!id) return id.error();
  const int64_t trial_id = *id;
  if (t.load != nullptr) {
    if (Status st = InsertRecords(*db_, trial_id, t); !st) return st.error();
  }
  if (Status st = db_->Exec(fmt::format("UPDATE arms SET status = 'measured' WHERE id = {} AND "
                                        "status = 'pending'",
                                        t.arm));
      !st) {
    return st.error();
  }
  if (Status st = tx->Commit(); !st) return st.error();
  return trial_id;
}

Status RunWriter::MarkArmFailed(uint32_t arm, const std::string& failure) {
  auto s = db_->Prepare("UPDATE arms SET status = 'failed', failure = ?1 WHERE id = ?2");
  if (!s) return s.error();
  s->Bind(1, failure);
  s->Bind(2, int64_t{arm});
  return s->Run();
}

Status RunWriter::RecordStop(const StopRecord& stop) {
  auto s = db_->Prepare("UPDATE run SET stop_json = ?1 WHERE id = 1");
  if (!s) return s.error();
  s->Bind(1, json_fields::Writer::Value(stop).dump());
  return s->Run();
}

Status RunWriter::ChooseTrialLength(
    const RunAsked& options, const std::string& reason,
    const std::vector<std::pair<uint32_t, nlohmann::json>>& settings) {
  auto tx = Transaction::Begin(*db_);
  if (!tx) return tx.error();
  auto run = db_->Prepare("UPDATE run SET options_json = ?1 WHERE id = 1");
  if (!run) return run.error();
  run->Bind(1, json_fields::Writer::Value(options).dump());
  if (Status st = run->Run(); !st) return st;
  auto pilot = db_->Prepare(
      "UPDATE trials SET valid = 0, reasons_json = json_insert(reasons_json, '$[#]', ?1) "
      "WHERE block < ?2");
  if (!pilot) return pilot.error();
  pilot->Bind(1, reason);
  pilot->Bind(2, static_cast<int64_t>(options.pilot_blocks));
  if (Status st = pilot->Run(); !st) return st;
  for (const auto& [arm, json] : settings) {
    auto s = db_->Prepare("UPDATE arms SET settings_json = ?1 WHERE id = ?2");
    if (!s) return s.error();
    s->Bind(1, json.dump());
    s->Bind(2, int64_t{arm});
    if (Status st = s->Run(); !st) return st;
  }
  return tx->Commit();
}

Status RunWriter::Finish(const std::string& ended, bool complete) {
  auto s = db_->Prepare("UPDATE run SET ended = ?1, complete = ?2 WHERE id = 1");
  if (!s) return s.error();
  s->Bind(1, ended);
  s->Bind(2, int64_t{complete});
  if (Status st = s->Run(); !st) return st;
  return db_->Exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

}  // namespace pqc::results
