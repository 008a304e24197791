// record_columns — the columns of the per-connection tables (connections, requests) in the
// schema's order, each with the schema version that added it, what an older file reads
// instead, and its role when a trial's rows are copied into another database (a merge). The
// reader's SELECT and the copy's are built from these lists; results_test checks them against
// the tables CreateSchema makes, so that a column added to the schema and not here fails a
// test instead of shifting every column after it.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace pqc::results {

// ColumnRole: how a copy moves a column: as it is, or renumbered into the target trial.
enum class ColumnRole {
  kPlain,
  kTrial,       // the trial id: the target trial's
  kConnection,  // a connection id: after the connections of the shards copied before
  kRequest,     // a request's index: after the requests of the shards copied before
  kTimestamp,   // monotonic ns: shifted onto the target's clock (0, "never", stays 0)
  kShard,       // the shard that measured it
};

struct Column {
  std::string_view name;
  int since = 1;                 // the schema version that added it
  std::string_view absent = "";  // what a file older than `since` reads (SQL)
  ColumnRole role = ColumnRole::kPlain;
};

inline constexpr std::array kConnectionColumns = {
    Column{"trial_id", 1, "", ColumnRole::kTrial},
    Column{"id", 1, "", ColumnRole::kConnection},
    Column{"thread"},
    Column{"mode"},
    Column{"measured"},
    Column{"offered_session"},
    Column{"intended_start", 1, "", ColumnRole::kTimestamp},
    Column{"actual_start", 1, "", ColumnRole::kTimestamp},
    Column{"tcp_established", 1, "", ColumnRole::kTimestamp},
    Column{"tls_done", 1, "", ColumnRole::kTimestamp},
    Column{"closed", 1, "", ColumnRole::kTimestamp},
    Column{"first_request", 1, "", ColumnRole::kRequest},
    Column{"request_count"},
    Column{"handshake_bytes_written"},
    Column{"handshake_bytes_read"},
    Column{"client_hello_bytes"},
    Column{"server_hello_bytes"},
    Column{"certificate_bytes"},
    Column{"certificate_verify_bytes"},
    Column{"grp"},
    Column{"signature_scheme"},
    Column{"cipher"},
    Column{"resumed"},
    Column{"hrr"},
    Column{"error"},
    Column{"error_detail"},
    Column{"handshake_segments_read", 2, "0"},  // 0: unknown
    Column{"early_data", 4, "'none'"},
    Column{"early_bytes", 4, "0"},
    Column{"shard", 5, "0", ColumnRole::kShard},
    Column{"site", 6, "0"},
    Column{"protocol", 7, "'h1'"},
    Column{"handshake_datagrams_sent", 7, "0"},
    Column{"handshake_datagrams_received", 7, "0"},
    Column{"initial_datagrams", 7, "0"},
    Column{"amplification_limited", 7, "0"},
    Column{"retried", 9, "0"},
};

inline constexpr std::array kRequestColumns = {
    Column{"trial_id", 1, "", ColumnRole::kTrial},
    Column{"conn_id", 1, "", ColumnRole::kConnection},
    Column{"seq"},
    Column{"sent", 1, "", ColumnRole::kTimestamp},
    Column{"first_byte", 1, "", ColumnRole::kTimestamp},
    Column{"last_byte", 1, "", ColumnRole::kTimestamp},
    Column{"status"},
    Column{"body_bytes"},
};

// ColumnSource: how a file of schema `version` yields `c` (its name, or what an older file
// reads instead).
inline std::string ColumnSource(const Column& c, int version) {
  return std::string(version >= c.since ? c.name : c.absent);
}

}  // namespace pqc::results
