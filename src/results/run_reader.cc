#include "results/run_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "records/connection_columns.h"
#include "results/schema.h"
#include "results/trial_table.h"

namespace pqc::results {
namespace {

Result<nlohmann::json> ParseJson(const std::string& text, std::string_view what) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("corrupt results database: {} is not JSON", what));
  }
  return j;
}

// ReadJsonColumn: a column's JSON text into its record (json_fields).
template <class T>
Status ReadJsonColumn(const std::string& text, std::string_view what, T& out) {
  auto j = ParseJson(text, what);
  if (!j) return j.error();
  return json_fields::Read(*j, out, fmt::format("corrupt results database: {}", what));
}

Result<ArmStatus> StatusFromName(std::string_view name) {
  for (ArmStatus s : {ArmStatus::kPending, ArmStatus::kMeasured, ArmStatus::kFailed}) {
    if (ArmStatusName(s) == name) return s;
  }
  return MakeError(ErrorKind::kConfig,
                   fmt::format("corrupt results database: arm status '{}'", name));
}

uint32_t U32(int64_t v) {
  return static_cast<uint32_t>(v);
}

}  // namespace

namespace {

Error CorruptError(const std::string& file, const std::string& why) {
  return MakeError(ErrorKind::kConfig,
                   fmt::format("{} is a corrupt results database (truncated or damaged: {}); "
                               "nothing is reported from it — use an intact copy",
                               file, why));
}

// ReadList: the SELECT list of a table's columns for a file of schema `version`.
std::string ReadList(const std::vector<ListedColumn>& columns, int version) {
  std::string out;
  for (const ListedColumn& l : columns) {
    out += (out.empty() ? "" : ", ") + ColumnSource(l.column, version);
  }
  return out;
}

// KeyColumn: where a table's column of `role` is in its list.
int KeyColumn(const std::vector<ListedColumn>& columns, ColumnRole role) {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].column.role == role) return static_cast<int>(i);
  }
  return -1;
}

// RowLoader: one row's columns read into a record in list order (connection_columns.h);
// the keys the store supplies are kept aside (the connection's id of a request, the shard).
struct RowLoader {
  const Stmt& s;
  TrialRecords& out;
  std::string_view& last_cipher;  // the cipher text last interned (out.strings owns it)
  int i = 0;
  uint32_t shard = 0;
  std::string error;  // the first column that did not read

  void Key(const Column& c) {
    const int col = i++;
    if (c.role == ColumnRole::kShard) shard = U32(s.Int(col));
  }
  template <class T>
  void operator()(const Column& c, T& member) {
    const int col = i++;
    if constexpr (std::is_same_v<T, std::string>) {
      member = s.TextView(col);
    } else if constexpr (std::is_same_v<T, const char*>) {
      // Every connection of a trial names one or two ciphers: look the set up only on a change.
      if (const std::string_view text = s.TextView(col); text != last_cipher) {
        last_cipher = *out.strings.emplace(text).first;
      }
      member = last_cipher.data();
    } else if constexpr (TextEnum<T>) {
      const std::string_view text = s.TextView(col);
      if (auto e = ParseColumnEnum<T>(text)) {
        member = *e;
      } else if (error.empty()) {
        error = fmt::format("{} '{}'", c.name, text);
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      member = s.Int(col) != 0;
    } else {
      member = static_cast<T>(s.Int(col));
    }
  }
};

}  // namespace

std::string_view ArmStatusName(ArmStatus s) {
  switch (s) {
    case ArmStatus::kPending:
      return "pending";
    case ArmStatus::kMeasured:
      return "measured";
    case ArmStatus::kFailed:
      return "failed";
  }
  return "pending";
}

Result<Db> OpenResults(const std::string& path, Integrity integrity) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec))
    file = (std::filesystem::path(path) / "results.sqlite").string();
  if (!std::filesystem::is_regular_file(file, ec)) {
    return MakeError(ErrorKind::kIo, fmt::format("no results database at {} (give a run's "
                                                 "directory under results/ or its results.sqlite)",
                                                 file));
  }
  auto db = Db::Open(file, /*create=*/false, /*read_only=*/true);
  if (!db) return db.error();
  if (Status st = CheckSchema(*db); !st) return st.error();
  const auto wal = std::filesystem::file_size(file + "-wal", ec);
  if (integrity == Integrity::kLength && (ec || wal == 0)) {
    ec.clear();
    auto pages = db->Prepare(
        "SELECT page_count * page_size FROM pragma_page_count, "
        "pragma_page_size");
    if (!pages) return CorruptError(file, pages.error().message);
    auto row = pages->Step();
    if (!row || !*row) return CorruptError(file, row ? "no page count" : row.error().message);
    const auto size = std::filesystem::file_size(file, ec);
    if (ec || size < static_cast<uint64_t>(pages->Int(0))) {
      return CorruptError(file, fmt::format("{} bytes, short of the {} its pages need",
                                            ec ? 0 : size, pages->Int(0)));
    }
    return db;
  }
  // A truncated or damaged file can still hold an intact schema: a copy cut short lost the
  // last page (every request row) and `report` printed the rest without ttfb or response, as
  // if nothing were missing. quick_check reads every page once (what a report reads anyway)
  // and turns that into an error naming the file.
  auto check = db->Prepare("PRAGMA quick_check(1)");
  if (!check) return CorruptError(file, check.error().message);
  auto row = check->Step();
  if (!row) return CorruptError(file, row.error().message);
  if (!*row || check->Text(0) != "ok") return CorruptError(file, *row ? check->Text(0) : "");
  return db;
}

Result<StoredRun> ReadRun(Db& db) {
  StoredRun run;
  run.path = db.path();
  auto version = SchemaVersion(db);
  if (!version) return version.error();
  run.schema_version = *version;
  // Version 1 has no floors: the same shape of row, with NULL in their place.
  const bool floors = *version >= 2;
  auto r = db.Prepare(fmt::format(
      "SELECT scenario, scenario_file, scenario_text, title, options_json, tool_version, "
      "git_commit, openssl_version, cpu_model, cores, kernel, hostname, target, seed, "
      "trials_planned, started, ended, complete, {}, {}, {}, {} FROM run WHERE id = 1",
      floors ? "speed_json" : "NULL", *version >= 3 ? "networks_json" : "NULL",
      *version >= 5 ? "shard_index, shard_count, shard_json" : "0, 1, NULL",
      *version >= 8 ? "stop_json" : "NULL"));
  if (!r) return r.error();
  auto row = r->Step();
  if (!row) return row.error();
  if (!*row)
    return MakeError(ErrorKind::kConfig, fmt::format("{}: the run row is missing", db.path()));
  RunInfo& i = run.info;
  i.scenario = r->Text(0);
  i.scenario_file = r->Text(1);
  i.scenario_text = r->Text(2);
  i.title = r->Text(3);
  if (Status st = ReadJsonColumn(r->Text(4), "run.options_json", i.options); !st) {
    return st.error();
  }
  i.tool_version = r->Text(5);
  i.git_commit = r->Text(6);
  i.openssl_version = r->Text(7);
  i.cpu_model = r->Text(8);
  i.cores = U32(r->Int(9));
  i.kernel = r->Text(10);
  i.hostname = r->Text(11);
  i.target = r->Text(12);
  i.seed = static_cast<uint64_t>(r->Int(13));
  i.trials_planned = U32(r->Int(14));
  i.started = r->Text(15);
  run.ended = r->Text(16);
  run.complete = r->Int(17) != 0;
  if (!r->IsNull(18)) {
    auto speed = ParseJson(r->Text(18), "run.speed_json");
    if (!speed) return speed.error();
    i.speed = std::move(*speed);
  }
  if (!r->IsNull(19)) {
    if (Status st = ReadJsonColumn(r->Text(19), "run.networks_json", i.networks); !st) {
      return st.error();
    }
  }
  i.merged = r->IsNull(20);
  i.shard = {i.merged ? 0 : U32(r->Int(20)), U32(r->Int(21))};
  if (i.shard.count == 0 || i.shard.index >= i.shard.count) {
    return MakeError(ErrorKind::kConfig, fmt::format("{}: corrupt run row: shard {} of {}",
                                                     db.path(), i.shard.index, i.shard.count));
  }
  if (!r->IsNull(22)) {
    if (Status st = ReadJsonColumn(r->Text(22), "run.shard_json", i.shard_facts.emplace()); !st) {
      return st.error();
    }
  }
  if (!r->IsNull(23)) {
    if (Status st = ReadJsonColumn(r->Text(23), "run.stop_json", run.stop.emplace()); !st) {
      return st.error();
    }
  }

  auto a = db.Prepare(fmt::format(
      "SELECT id, label, factors_json, settings_json, status, failure, {} FROM arms ORDER BY id",
      floors ? "floor_client_us, floor_server_us, floor_json" : "NULL, NULL, NULL"));
  if (!a) return a.error();
  for (;;) {
    auto more = a->Step();
    if (!more) return more.error();
    if (!*more) break;
    StoredArm arm;
    arm.id = U32(a->Int(0));
    arm.label = a->Text(1);
    auto f = nlohmann::ordered_json::parse(a->Text(2), nullptr, false);
    auto s = ParseJson(a->Text(3), "arms.settings_json");
    if (f.is_discarded() || !s)
      return MakeError(ErrorKind::kConfig, "corrupt results database: arms");
    arm.factors = std::move(f);
    arm.settings = std::move(*s);
    if (Status st =
            json_fields::Read(arm.settings, arm.view,
                              fmt::format("corrupt results database: arm {}'s settings", arm.id));
        !st) {
      return st.error();
    }
    auto status = StatusFromName(a->Text(4));
    if (!status) return status.error();
    arm.status = *status;
    arm.failure = a->Text(5);
    if (!a->IsNull(6) && !a->IsNull(7)) {
      results::ArmFloor floor{a->Real(6), a->Real(7), nullptr};
      if (!a->IsNull(8)) {
        auto detail = ParseJson(a->Text(8), "arms.floor_json");
        if (!detail) return detail.error();
        floor.detail = std::move(*detail);
      }
      arm.floor = std::move(floor);
    }
    run.arms.push_back(std::move(arm));
  }

  auto trials = ReadTrials(db, *version);
  if (!trials) return trials.error();
  run.trials = std::move(*trials);
  return run;
}

Result<TrialRecords> ReadTrialRecords(Db& db, int64_t trial_id) {
  TrialRecords out;
  auto version = SchemaVersion(db);
  if (!version) return version.error();
  // Every column in the tables' order, an older file's missing ones as they read
  // (connection_columns.h).
  const std::vector<ListedColumn> conn_columns = ConnectionColumnList();
  const std::vector<ListedColumn> req_columns = RequestColumnList();
  auto c = db.Prepare(fmt::format("SELECT {} FROM connections WHERE trial_id = ?1 ORDER BY id",
                                  ReadList(conn_columns, *version)));
  auto q =
      db.Prepare(fmt::format("SELECT {} FROM requests WHERE trial_id = ?1 ORDER BY conn_id, seq",
                             ReadList(req_columns, *version)));
  if (!c) return c.error();
  if (!q) return q.error();
  c->Bind(1, trial_id);
  q->Bind(1, trial_id);
  const int conn_of_request = KeyColumn(req_columns, ColumnRole::kConnection);
  // Requests arrive sorted by connection id, as connections do: one merge pass.
  std::string_view last_cipher = *out.strings.emplace("").first;
  auto corrupt = [](const std::string& what) {
    return MakeError(ErrorKind::kConfig, "corrupt results database: " + what);
  };
  auto qrow = q->Step();
  if (!qrow) return qrow.error();
  for (;;) {
    auto more = c->Step();
    if (!more) return more.error();
    if (!*more) break;
    ConnectionRecord r;
    RowLoader row{*c, out, last_cipher};
    ConnectionColumns(r, row);
    if (!row.error.empty()) return corrupt(row.error);
    out.shards.push_back(row.shard);
    r.first_request = U32(static_cast<int64_t>(out.load.requests.size()));
    while (*qrow && static_cast<uint64_t>(q->Int(conn_of_request)) < r.id) {  // orphans: skipped
      qrow = q->Step();
      if (!qrow) return qrow.error();
    }
    while (*qrow && static_cast<uint64_t>(q->Int(conn_of_request)) == r.id) {
      RowLoader req{*q, out, last_cipher};
      RequestColumns(out.load.requests.emplace_back(), req);
      if (!req.error.empty()) return corrupt(req.error);
      qrow = q->Step();
      if (!qrow) return qrow.error();
    }
    r.request_count = U32(static_cast<int64_t>(out.load.requests.size()) - r.first_request);
    out.load.connections.push_back(std::move(r));
  }
  return out;
}

}  // namespace pqc::results
