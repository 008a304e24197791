#include "results/schema.h"

#include <fmt/format.h>

#include <string>

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
CREATE TABLE connections(
  trial_id INTEGER NOT NULL REFERENCES trials(id), id INTEGER NOT NULL,
  thread INTEGER NOT NULL, mode TEXT NOT NULL, measured INTEGER NOT NULL,
  offered_session INTEGER NOT NULL,
  intended_start INTEGER NOT NULL, actual_start INTEGER NOT NULL,
  tcp_established INTEGER NOT NULL, tls_done INTEGER NOT NULL, closed INTEGER NOT NULL,
  first_request INTEGER NOT NULL, request_count INTEGER NOT NULL,
  handshake_bytes_written INTEGER NOT NULL, handshake_bytes_read INTEGER NOT NULL,
  client_hello_bytes INTEGER NOT NULL, server_hello_bytes INTEGER NOT NULL,
  certificate_bytes INTEGER NOT NULL, certificate_verify_bytes INTEGER NOT NULL,
  grp TEXT NOT NULL, signature_scheme INTEGER NOT NULL, cipher TEXT NOT NULL,
  resumed INTEGER NOT NULL, hrr INTEGER NOT NULL, error TEXT NOT NULL, error_detail TEXT NOT NULL,
  handshake_segments_read INTEGER NOT NULL,
  early_data TEXT NOT NULL DEFAULT 'none', early_bytes INTEGER NOT NULL DEFAULT 0,
  shard INTEGER NOT NULL DEFAULT 0, site INTEGER NOT NULL DEFAULT 0,
  protocol TEXT NOT NULL DEFAULT 'h1', handshake_datagrams_sent INTEGER NOT NULL DEFAULT 0,
  handshake_datagrams_received INTEGER NOT NULL DEFAULT 0,
  initial_datagrams INTEGER NOT NULL DEFAULT 0, amplification_limited INTEGER NOT NULL DEFAULT 0,
  retried INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (trial_id, id)) WITHOUT ROWID;
CREATE TABLE requests(
  trial_id INTEGER NOT NULL, conn_id INTEGER NOT NULL, seq INTEGER NOT NULL,
  sent INTEGER NOT NULL, first_byte INTEGER NOT NULL, last_byte INTEGER NOT NULL,
  status INTEGER NOT NULL, body_bytes INTEGER NOT NULL,
  PRIMARY KEY (trial_id, conn_id, seq)) WITHOUT ROWID;
)sql";

}  // namespace

Status CreateSchema(Db& db) {
  if (Status st = db.Exec(kTables); !st) return st;
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
