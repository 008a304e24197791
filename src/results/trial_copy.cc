#include "results/trial_copy.h"

#include <fmt/format.h>

#include <vector>

#include "records/connection_columns.h"

namespace pqc::results {
namespace {

// SelectList: the source expressions of `columns`, in order, for the copy's INSERT … SELECT
// (parameters: ?1 the target trial, ?2 the shift, ?3 the connection offset, ?5 the request
// offset, ?6 the shard). A timestamp is shifted only when there is a shift: a CASE per
// timestamp is a tenth of a copy's time, and shards on one machine share a clock.
std::string SelectList(const std::vector<ListedColumn>& columns, const TrialCopy& p) {
  std::vector<std::string> out;
  for (const ListedColumn& l : columns) {
    const Column& c = l.column;
    const std::string source = ColumnSource(c, p.version);
    switch (c.role) {
      case ColumnRole::kPlain:
      case ColumnRole::kPosition:
        out.push_back(source);
        break;
      case ColumnRole::kTrial:
        out.push_back("?1");
        break;
      case ColumnRole::kConnection:
        out.push_back(source + " + ?3");
        break;
      case ColumnRole::kRequest:
        out.push_back(source + " + ?5");
        break;
      case ColumnRole::kShard:
        out.push_back("?6");
        break;
      case ColumnRole::kTimestamp:
        out.push_back(p.shift == 0
                          ? source
                          : fmt::format("CASE {0} WHEN 0 THEN 0 ELSE {0} + ?2 END", source));
        break;
    }
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

// BindCopy: the copy's parameters (an index past a statement's highest would be refused).
void BindCopy(Stmt& stmt, const TrialCopy& p, int64_t to, bool connections) {
  stmt.Bind(1, to);
  stmt.Bind(2, p.shift);
  stmt.Bind(3, p.connection_offset);
  stmt.Bind(4, p.from);
  if (connections) {
    stmt.Bind(5, p.request_offset);
    stmt.Bind(6, int64_t{p.shard});
  }
}

Result<int64_t> One(Db& db, const char* sql, int64_t trial) {
  auto q = db.Prepare(sql);
  if (!q) return q.error();
  q->Bind(1, trial);
  if (auto row = q->Step(); !row || !*row) {
    return MakeError(ErrorKind::kIo, fmt::format("cannot read {}'s trial {}", db.path(), trial));
  }
  return q->Int(0);
}

}  // namespace

Result<TrialExtent> ReadTrialExtent(Db& db, int64_t trial) {
  auto next_id =
      One(db, "SELECT coalesce(max(id) + 1, 0) FROM connections WHERE trial_id = ?1", trial);
  if (!next_id) return next_id.error();
  auto requests = One(db, "SELECT count(*) FROM requests WHERE trial_id = ?1", trial);
  if (!requests) return requests.error();
  return TrialExtent{.next_id = *next_id, .requests = *requests};
}

Result<uint64_t> CountConnections(Db& db, int64_t trial) {
  auto n = One(db, "SELECT count(*) FROM connections WHERE trial_id = ?1", trial);
  if (!n) return n.error();
  return static_cast<uint64_t>(*n);
}

Status CopyTrialRows(Db& out, const TrialCopy& p, int64_t to) {
  auto path = out.Prepare("ATTACH DATABASE ?1 AS source");
  if (!path) return path.error();
  path->Bind(1, p.file);
  if (Status st = path->Run(); !st) return st;
  // The tables' column order is connection_columns.h's (results_test checks it), so the INSERT
  // needs no column list.
  const std::string conns = fmt::format(
      "INSERT INTO main.connections SELECT {} FROM source.connections WHERE trial_id = ?4 "
      "ORDER BY id",
      SelectList(ConnectionColumnList(), p));
  const std::string reqs = fmt::format(
      "INSERT INTO main.requests SELECT {} FROM source.requests WHERE trial_id = ?4 "
      "ORDER BY conn_id, seq",
      SelectList(RequestColumnList(), p));
  Status st = out.Exec("BEGIN");
  for (const std::string* sql : {&conns, &reqs}) {
    if (!st) break;
    auto stmt = out.Prepare(*sql);
    if (!stmt) {
      st = stmt.error();
      break;
    }
    BindCopy(*stmt, p, to, sql == &conns);
    st = stmt->Run();
  }
  if (st) {
    st = out.Exec("COMMIT");
  } else {
    (void)out.Exec("ROLLBACK");  // the copy's error is the one to report
  }
  Status detached = out.Exec("DETACH DATABASE source");
  return st ? detached : st;
}

}  // namespace pqc::results
