// schema — the results database's tables. One file per run (results.sqlite in the run's
// directory), in WAL mode so a reader (report) may open it while the run writes, and every
// trial written in one transaction so that a crash leaves whole trials or none. Raw data
// only: every connection and request as recorded; statistics are computed from them later,
// so a better statistic never needs a re-run.
#pragma once

#include <string>
#include <string_view>

#include "core/error.h"
#include "results/sqlite_db.h"

namespace pqc::results {

inline constexpr std::string_view kSchemaName = "pqc-bench-results";
// Version 2 added each arm's crypto floor (arms.floor_*), the run's speed table
// (run.speed_json) and each connection's handshake_segments_read. Version 1 files are still
// read; their floors are null and their segment counts 0 (unknown).
// Version 3 added the network profiles the run's arms used (run.networks_json: name → RTT and
// description), so that a report needs no scenario parser; older files leave it null and the
// CLI derives it from their stored scenario text.
// Version 4 added each connection's early data (connections.early_data: none, accepted or
// rejected; early_bytes), for the `early` mode; older files read as none, 0.
// Version 5 added shards (issue 18): which shard of how many a run is (run.shard_index,
// NULL in a merged database, shard_count, shard_json: clock offset, boot id, rendezvous),
// the shard each connection was measured by (connections.shard) and, in a merged database,
// every shard's view of each trial (trials.shards_json). Older files read as one shard.
// Version 6 added each connection's client site (connections.site: an index into the sites of
// its arm's network, run.networks_json; 0 on a network of one site). Older files read as 0.
// Version 7 added HTTP/3 over QUIC: each connection's protocol (h1 or h3) and, over QUIC, its
// datagrams each way until the handshake completed, its Initial datagrams and whether the
// server's flight was held back by the anti-amplification limit. Older files read as h1, 0.
// Version 8 added how a study that stopped itself ended (run.stop_json, run_record.h's
// StopRecord: why, after how many blocks, every question's answer); NULL for a study of fixed
// size, and in older files.
// Version 9 added whether a QUIC server answered a connection's first Initial with a Retry
// (connections.retried: address validation, a round trip more). Older files read as 0.
// Version 10 added the HTTP/2 frames a server sent before its first response
// (connections.h2_frames_before_response). Older files read as 0.
inline constexpr int kSchemaVersion = 10;
inline constexpr int kOldestReadableVersion = 1;

// CreateSchema: the tables of an empty database, and the meta rows that identify it. The
// per-connection tables come from their column lists (records/connection_columns.h).
Status CreateSchema(Db& db);

// AddedColumns: the ALTER TABLEs that add the per-connection columns of schema `version` to a
// file of the version before (its rows read as the columns' `absent` values).
std::string AddedColumns(int version);

// CheckSchema: the database is one of ours, of a version this build reads. The message says
// what the file is instead ("not a pqc-bench results database", "written by a newer
// version") rather than failing later on a missing table.
Status CheckSchema(Db& db);

// SchemaVersion: the version of a database CheckSchema accepted (the reader selects the
// columns that version has).
Result<int> SchemaVersion(Db& db);

}  // namespace pqc::results
