// sqlite_db — the few SQLite calls the results store needs, each handle owned (RAII) and every
// failure turned into an Error that names the database file and the statement. Not a general
// wrapper: SQLite's C API is used directly beneath it, the library does the real work.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace pqc::results {

struct SqliteCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

class Stmt;

// SqliteError: the message for a failed call on `db`, naming its file and the statement.
Error SqliteError(sqlite3* db, std::string_view what);

class Db {
 public:
  // Open: read-write (creating it when `create`) or read-only.
  static Result<Db> Open(const std::string& path, bool create, bool read_only);
  Status Exec(std::string_view sql);  // one or more statements, no results
  Result<Stmt> Prepare(std::string_view sql);
  Error Fail(std::string_view what) const;  // the error with SQLite's message
  sqlite3* get() const { return db_.get(); }
  const std::string& path() const { return path_; }

 private:
  std::unique_ptr<sqlite3, SqliteCloser> db_;
  std::string path_;
};

// Stmt — a prepared statement. Bind* take 1-based indexes; Step returns true while rows come.
class Stmt {
 public:
  explicit Stmt(sqlite3_stmt* s) : s_(s) {}
  void Bind(int i, int64_t v) { sqlite3_bind_int64(s_.get(), i, v); }
  void Bind(int i, double v) { sqlite3_bind_double(s_.get(), i, v); }
  void Bind(int i, std::string_view v) {
    sqlite3_bind_text(s_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  // BindStatic: no copy (SQLITE_STATIC) — for the per-row hot path, where a million copies
  // per trial show; the caller keeps `v` alive until Run() has returned.
  void BindStatic(int i, std::string_view v) {
    sqlite3_bind_text(s_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  void BindNull(int i) { sqlite3_bind_null(s_.get(), i); }
  Result<bool> Step();  // true: a row is ready
  Status Run();         // Step until done, then Reset
  void Reset() {
    sqlite3_reset(s_.get());
    sqlite3_clear_bindings(s_.get());
  }
  int64_t Int(int col) const { return sqlite3_column_int64(s_.get(), col); }
  double Real(int col) const { return sqlite3_column_double(s_.get(), col); }
  bool IsNull(int col) const { return sqlite3_column_type(s_.get(), col) == SQLITE_NULL; }
  std::string Text(int col) const;
  // TextView: the column's text without a copy, valid until the next Step or Reset (the
  // per-row hot path of reading millions of rows).
  std::string_view TextView(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_.get(), col));
    return p != nullptr
               ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(s_.get(), col)))
               : std::string_view();
  }

 private:
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> s_;
};

// Transaction: BEGIN IMMEDIATE now, ROLLBACK unless Commit() succeeded (so a failure or an
// exception halfway leaves the database as it was before the trial).
class Transaction {
 public:
  static Result<Transaction> Begin(Db& db);
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Status Commit();

 private:
  explicit Transaction(Db* db) : db_(db) {}
  Db* db_;
};

}  // namespace pqc::results
