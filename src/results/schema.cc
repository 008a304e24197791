#include "results/schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "records/connection_columns.h"

namespace pqc::results {
namespace {

constexpr std::string_view kTables = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE run(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  scenario TEXT NOT NULL, scenario_file TEXT NOT NULL, scenario_text TEXT NOT NULL,
  title TEXT NOT NULL, options_json TEXT NOT NULL,
  tool_version TEXT NOT NULL, git_commit TEXT NOT NULL, openssl_version TEXT NOT NULL,
  cpu_model TEXT NOT NULL, cores INTEGER NOT NULL, kernel TEXT NOT NULL, hostname TEXT NOT NULL,
  target TEXT NOT NULL, seed INTEGER NOT NULL, trials_planned INTEGER NOT NULL,
  started TEXT NOT NULL, ended TEXT, complete INTEGER NOT NULL DEFAULT 0,
  speed_json TEXT, networks_json TEXT,
  shard_index INTEGER, shard_count INTEGER NOT NULL DEFAULT 1, shard_json TEXT, stop_json TEXT);
CREATE TABLE arms(
  id INTEGER PRIMARY KEY, label TEXT NOT NULL, factors_json TEXT NOT NULL,
  settings_json TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending', failure TEXT,
  floor_client_us REAL, floor_server_us REAL, floor_json TEXT);
CREATE TABLE trials(
  id INTEGER PRIMARY KEY, arm_id INTEGER NOT NULL REFERENCES arms(id),
  block INTEGER NOT NULL, seq INTEGER NOT NULL UNIQUE,
  started TEXT NOT NULL, ended TEXT NOT NULL,
  valid INTEGER NOT NULL, reasons_json TEXT NOT NULL, interrupted INTEGER NOT NULL,
  summary_json TEXT NOT NULL, target_json TEXT NOT NULL, link_json TEXT NOT NULL,
  server_cpu_s REAL, server_handshakes INTEGER, client_cpu_s REAL,
  mono_anchor_ns INTEGER NOT NULL, wall_anchor_ns INTEGER NOT NULL,
  measure_start_ns INTEGER NOT NULL, measure_end_ns INTEGER NOT NULL, shards_json TEXT);
)sql";

// Definition: a column as CREATE TABLE and ALTER TABLE … ADD COLUMN write it. A column added
// after the first version has its older rows' value as its default.
std::string Definition(const ListedColumn& l) {
  const Column& c = l.column;
  std::string out = fmt::format("{} {} NOT NULL", c.name, l.text ? "TEXT" : "INTEGER");
  if (c.since > 1) out += fmt::format(" DEFAULT {}", c.absent);
  if (c.role == ColumnRole::kTrial) out += " REFERENCES trials(id)";
  return out;
}

// Table: a per-connection table from its column list (connection_columns.h).
std::string Table(std::string_view name, const std::vector<ListedColumn>& columns,
                  std::string_view key) {
  std::vector<std::string> defs;
  for (const ListedColumn& l : columns) defs.push_back(Definition(l));
  return fmt::format("CREATE TABLE {}({}, PRIMARY KEY ({})) WITHOUT ROWID;", name,
                     fmt::join(defs, ", "), key);
}

}  // namespace

std::string AddedColumns(int version) {
  std::string out;
  for (const auto& [table, columns] : {std::pair{"connections", ConnectionColumnList()},
                                       std::pair{"requests", RequestColumnList()}}) {
    for (const ListedColumn& l : columns) {
      if (l.column.since == version) {
        out += fmt::format("ALTER TABLE {} ADD COLUMN {};", table, Definition(l));
      }
    }
  }
  return out;
}

Status CreateSchema(Db& db) {
  if (Status st = db.Exec(kTables); !st) return st;
  if (Status st = db.Exec(Table("connections", ConnectionColumnList(), "trial_id, id")); !st) {
    return st;
  }
  if (Status st = db.Exec(Table("requests", RequestColumnList(), "trial_id, conn_id, seq")); !st) {
    return st;
  }
  return db.Exec(fmt::format("INSERT INTO meta VALUES ('schema', '{}'), ('version', '{}')",
                             kSchemaName, kSchemaVersion));
}

namespace {

// Meta: the meta table's schema marker and version ("" when absent).
struct Meta {
  std::string schema, version;
};

Result<Meta> ReadMeta(Db& db) {
  auto stmt = db.Prepare("SELECT key, value FROM meta");
  if (!stmt) return stmt.error();
  Meta m;
  for (;;) {
    auto row = stmt->Step();
    if (!row) return row.error();
    if (!*row) break;
    const std::string key = stmt->Text(0);
    if (key == "schema") m.schema = stmt->Text(1);
    if (key == "version") m.version = stmt->Text(1);
  }
  return m;
}

}  // namespace

Status CheckSchema(Db& db) {
  auto not_ours = [&](std::string_view why) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("{} is not a pqc-bench results database ({}); give the "
                                 "results.sqlite that `pqc-bench run` wrote, or its directory",
                                 db.path(), why));
  };
  auto meta = ReadMeta(db);
  if (!meta) return not_ours(meta.error().message);
  if (meta->schema != kSchemaName) return not_ours("no pqc-bench schema marker");
  bool known = false;
  for (int v = kOldestReadableVersion; v <= kSchemaVersion; ++v) {
    known = known || meta->version == std::to_string(v);
  }
  if (!known) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("{}: results schema version {} (this pqc-bench reads versions "
                                 "{} to {}); use the pqc-bench that wrote it",
                                 db.path(), meta->version, kOldestReadableVersion, kSchemaVersion));
  }
  return {};
}

Result<int> SchemaVersion(Db& db) {
  if (Status st = CheckSchema(db); !st) return st.error();
  auto meta = ReadMeta(db);
  if (!meta) return meta.error();
  return std::stoi(meta->version);
}

}  // namespace pqc::results
