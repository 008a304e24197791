#include "results/sqlite_db.h"

#include <fmt/format.h>

namespace pqc::results {

Result<Db> Db::Open(const std::string& path, bool create, bool read_only) {
  sqlite3* raw = nullptr;
  // Written: never through a symbolic link planted at the path (SQLite then refuses it, as
  // every other file the tool writes, core/file_output.h).
  const int flags =
      read_only
          ? SQLITE_OPEN_READONLY
          : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | (create ? SQLITE_OPEN_CREATE : 0));
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  Db db;
  db.db_.reset(raw);
  db.path_ = path;
  if (rc != SQLITE_OK) {
    return MakeError(ErrorKind::kIo,
                     fmt::format("cannot open results database {}: {}", path,
                                 raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(raw, 5000);
  return db;
}

Error SqliteError(sqlite3* db, std::string_view what) {
  const char* file = sqlite3_db_filename(db, "main");
  // SQLITE_FULL: its write met ENOSPC (the database, its journal or a temporary file).
  const bool full = (sqlite3_extended_errcode(db) & 0xff) == SQLITE_FULL;
  return MakeError(full ? ErrorKind::kNoSpace : ErrorKind::kIo,
                   fmt::format("results database {}: {}: {}", file != nullptr ? file : "?", what,
                               sqlite3_errmsg(db)));
}

Error Db::Fail(std::string_view what) const {
  return SqliteError(get(), what);
}

Status Db::Exec(std::string_view sql) {
  const std::string text(sql);
  if (sqlite3_exec(get(), text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Fail(text.substr(0, 60));
  }
  return {};
}

Result<Stmt> Db::Prepare(std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(get(), sql.data(), static_cast<int>(sql.size()), &s, nullptr) !=
      SQLITE_OK) {
    return Fail(sql.substr(0, 60));
  }
  return Stmt(s);
}

Result<bool> Stmt::Step() {
  const int rc = sqlite3_step(s_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(sqlite3_db_handle(s_.get()), sqlite3_sql(s_.get()));
}

Status Stmt::Run() {
  for (;;) {
    auto r = Step();
    if (!r) {
      Reset();
      return r.error();
    }
    if (!*r) break;
  }
  Reset();
  return {};
}

std::string Stmt::Text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_.get(), col));
  return p != nullptr ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s_.get(), col)))
                      : std::string();
}

Result<Transaction> Transaction::Begin(Db& db) {
  if (Status st = db.Exec("BEGIN IMMEDIATE"); !st) return st.error();
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  if (Status st = db_->Exec("COMMIT"); !st) return st;
  db_ = nullptr;
  return {};
}

}  // namespace pqc::results
