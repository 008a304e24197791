// connection_columns — the columns a connection and a request are stored in, in the tables'
// order: each with the record member it holds, the schema version that added it, what a file
// older than that reads instead, and its role when a trial's rows are copied into another
// database (a merge). One list per table, walked by everything that meets the tables: the
// schema's CREATE TABLE and its upgrades, the INSERT, the SELECT, a merge's copy
// (results/) and the samples CSV (samples_csv.h). So a per-connection metric is a member of
// ConnectionRecord, one line here (with the schema version that adds it: results/schema.h),
// and the code that fills it.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "records/record.h"

namespace pqc {

// ColumnRole: how a copy moves a column: as it is, or renumbered into the target trial.
enum class ColumnRole : uint8_t {
  kPlain,
  kTrial,       // the trial id: the target trial's
  kConnection,  // a connection id: after the connections of the shards copied before
  kRequest,     // a request's index: after the requests of the shards copied before
  kTimestamp,   // monotonic ns: shifted onto the target's clock (0, "never", stays 0)
  kShard,       // the shard that measured it
  kPosition,    // a request's position on its connection (copied as it is)
};

struct Column {
  std::string_view name;
  int since = 1;                 // the schema version that added it
  std::string_view absent = "";  // what a file older than `since` reads (an SQL literal)
  ColumnRole role = ColumnRole::kPlain;
  std::string_view csv = "";  // its name in the samples CSV when not `name`
};

// ColumnEnum: an enum stored as text, by the names reports use.
template <class E>
struct ColumnEnum;
template <>
struct ColumnEnum<ConnMode> {
  static constexpr std::array kAll = {ConnMode::kFresh, ConnMode::kReuse, ConnMode::kResume,
                                      ConnMode::kEarly};
  static std::string_view Name(ConnMode m) { return ConnModeName(m); }
};
template <>
struct ColumnEnum<EarlyData> {
  static constexpr std::array kAll = {EarlyData::kNone, EarlyData::kAccepted, EarlyData::kRejected};
  static std::string_view Name(EarlyData e) { return EarlyDataName(e); }
};
template <>
struct ColumnEnum<ErrorClass> {
  static constexpr std::array kAll = {
      ErrorClass::kNone,  ErrorClass::kRefused, ErrorClass::kConnect,
      ErrorClass::kReset, ErrorClass::kTimeout, ErrorClass::kTlsAlert,
      ErrorClass::kTls,   ErrorClass::kHttp,    ErrorClass::kClosed};
  static std::string_view Name(ErrorClass e) { return ErrorClassName(e); }
};
template <>
struct ColumnEnum<Protocol> {
  static constexpr std::array kAll = {Protocol::kH1, Protocol::kH2, Protocol::kH3};
  static std::string_view Name(Protocol p) { return ProtocolName(p); }
};

template <class T>
concept TextEnum = requires(T v) {
  ColumnEnum<T>::Name(v);
};

// ParseColumnEnum: the enum a stored name stands for (none: not one of its names).
template <TextEnum E>
std::optional<E> ParseColumnEnum(std::string_view name) {
  for (E e : ColumnEnum<E>::kAll) {
    if (ColumnEnum<E>::Name(e) == name) return e;
  }
  return std::nullopt;
}

// ColumnIsText: how a member is stored — text (strings, enums) or an integer (the rest:
// counts, flags, timestamps).
template <class T>
constexpr bool kColumnIsText =
    std::is_same_v<T, std::string> || std::is_same_v<T, const char*> || TextEnum<T>;

// ConnectionColumns: the connections table, in order. `v(column, member)` for a column a
// member holds, `v.Key(column)` for one the store supplies (the trial, the shard). Columns
// are appended only, each with a `since` no older than the one before (an upgraded file's
// ALTER TABLEs append them in that order).
template <class R, class V>
requires std::same_as<std::remove_const_t<R>, ConnectionRecord>
void ConnectionColumns(R& c, V& v) {
  using enum ColumnRole;
  v.Key(Column{"trial_id", 1, "", kTrial});
  v(Column{"id", 1, "", kConnection}, c.id);
  v(Column{"thread"}, c.thread);
  v(Column{"mode"}, c.mode);
  v(Column{"measured"}, c.measured);
  v(Column{"offered_session"}, c.offered_session);
  v(Column{"intended_start", 1, "", kTimestamp}, c.intended_start);
  v(Column{"actual_start", 1, "", kTimestamp}, c.actual_start);
  v(Column{"tcp_established", 1, "", kTimestamp}, c.tcp_established);
  v(Column{"tls_done", 1, "", kTimestamp}, c.tls_done);
  v(Column{"closed", 1, "", kTimestamp}, c.closed);
  v(Column{"first_request", 1, "", kRequest}, c.first_request);
  v(Column{"request_count"}, c.request_count);
  v(Column{"handshake_bytes_written"}, c.handshake_bytes_written);
  v(Column{"handshake_bytes_read"}, c.handshake_bytes_read);
  v(Column{"client_hello_bytes"}, c.client_hello_bytes);
  v(Column{"server_hello_bytes"}, c.server_hello_bytes);
  v(Column{"certificate_bytes"}, c.certificate_bytes);
  v(Column{"certificate_verify_bytes"}, c.certificate_verify_bytes);
  v(Column{"grp", 1, "", kPlain, "group"}, c.group);  // GROUP is an SQL keyword
  v(Column{"signature_scheme"}, c.signature_scheme);
  v(Column{"cipher"}, c.cipher);
  v(Column{"resumed"}, c.resumed);
  v(Column{"hrr"}, c.hrr);
  v(Column{"error"}, c.error);
  v(Column{"error_detail"}, c.error_detail);
  v(Column{"handshake_segments_read", 2, "0"}, c.handshake_segments_read);  // 0: unknown
  v(Column{"early_data", 4, "'none'"}, c.early_data);
  v(Column{"early_bytes", 4, "0"}, c.early_bytes);
  v.Key(Column{"shard", 5, "0", kShard});
  v(Column{"site", 6, "0"}, c.site);
  v(Column{"protocol", 7, "'h1'"}, c.protocol);
  v(Column{"handshake_datagrams_sent", 7, "0"}, c.handshake_datagrams_sent);
  v(Column{"handshake_datagrams_received", 7, "0"}, c.handshake_datagrams_received);
  v(Column{"initial_datagrams", 7, "0"}, c.initial_datagrams);
  v(Column{"amplification_limited", 7, "0"}, c.amplification_limited);
  v(Column{"retried", 9, "0"}, c.retried);
  v(Column{"h2_frames_before_response", 10, "0"}, c.h2_frames_before_response);
}

// RequestColumns: the requests table, in order (a request is stored under its connection's
// id with its position there).
template <class R, class V>
requires std::same_as<std::remove_const_t<R>, RequestRecord>
void RequestColumns(R& r, V& v) {
  using enum ColumnRole;
  v.Key(Column{"trial_id", 1, "", kTrial});
  v.Key(Column{"conn_id", 1, "", kConnection});
  v.Key(Column{"seq", 1, "", kPosition});
  v(Column{"sent", 1, "", kTimestamp}, r.sent);
  v(Column{"first_byte", 1, "", kTimestamp}, r.first_byte);
  v(Column{"last_byte", 1, "", kTimestamp}, r.last_byte);
  v(Column{"status"}, r.status);
  v(Column{"body_bytes"}, r.body_bytes);
}

// ColumnList: a table's columns alone, in order, with whether each is text (for what needs
// no member: the copy's SELECT, the CREATE TABLE, a test of the table's shape).
struct ListedColumn {
  Column column;
  bool text = false;
};
struct ColumnLister {
  std::vector<ListedColumn> out;
  void Key(const Column& c) { out.push_back({c, false}); }
  template <class T>
  void operator()(const Column& c, const T& /*member*/) {
    out.push_back({c, kColumnIsText<T>});
  }
};
inline std::vector<ListedColumn> ConnectionColumnList() {
  ColumnLister l;
  const ConnectionRecord shape;
  ConnectionColumns(shape, l);
  return std::move(l.out);
}
inline std::vector<ListedColumn> RequestColumnList() {
  ColumnLister l;
  const RequestRecord shape;
  RequestColumns(shape, l);
  return std::move(l.out);
}

// ColumnSource: how a file of schema `version` yields `c` (its name, or what an older file
// reads instead).
inline std::string ColumnSource(const Column& c, int version) {
  return std::string(version >= c.since ? c.name : c.absent);
}

}  // namespace pqc
