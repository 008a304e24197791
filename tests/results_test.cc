// results_test — the results database on a real SQLite file: every recorded field survives
// the round trip, a trial is all-or-nothing, an interrupted trial is replaced on resume, and
// a foreign or corrupt file is refused with a message that says what it is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "records/connection_columns.h"
#include "results/run_reader.h"
#include "results/run_writer.h"
#include "results/schema.h"
#include "results/trial_copy.h"

namespace pqc::results {
namespace {

namespace fs = std::filesystem;

// ColumnValues: every stored member of a connection, by its column (connection_columns.h), as
// text: compares two records whole, whatever columns the list gains.
struct ColumnText {
  std::vector<std::pair<std::string, std::string>> out;
  void Key(const Column& /*c*/) {}
  template <class T>
  void operator()(const Column& c, const T& member) {
    std::string text;
    if constexpr (std::is_same_v<T, std::string>) {
      text = member;
    } else if constexpr (std::is_same_v<T, const char*>) {
      text = member != nullptr ? member : "";
    } else if constexpr (TextEnum<T>) {
      text = std::string(ColumnEnum<T>::Name(member));
    } else {
      text = std::to_string(member);
    }
    out.emplace_back(std::string(c.name), std::move(text));
  }
};
std::vector<std::pair<std::string, std::string>> ColumnValues(const ConnectionRecord& c) {
  ColumnText t;
  ConnectionColumns(c, t);
  return std::move(t.out);
}

class ResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pqc-results-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const char* name = "results.sqlite") const { return (dir_ / name).string(); }

  // VersionThree: the SQL that makes a file of this version one of version 3 (before early
  // data): every per-connection column added since, by its list, and the other tables'.
  static std::string VersionThree() {
    std::string sql;
    for (const auto& [table, columns] : {std::pair{"connections", ConnectionColumnList()},
                                         std::pair{"requests", RequestColumnList()}}) {
      for (const ListedColumn& l : columns) {
        if (l.column.since > 3) {
          sql += std::string("ALTER TABLE ") + table + " DROP COLUMN " +
                 std::string(l.column.name) + ";";
        }
      }
    }
    return sql +
           "ALTER TABLE run DROP COLUMN shard_index;"
           "ALTER TABLE run DROP COLUMN shard_count;"
           "ALTER TABLE run DROP COLUMN shard_json;"
           "ALTER TABLE run DROP COLUMN stop_json;"
           "ALTER TABLE trials DROP COLUMN shards_json;"
           "UPDATE meta SET value = '3' WHERE key = 'version'";
  }

  static RunInfo Info() {
    RunInfo i;
    i.scenario = "t";
    i.scenario_file = "scenarios/t.toml";
    i.scenario_text = "title = \"t\"\n";
    i.title = "a title with 'quotes' and \"more\"";
    i.options = {.full = false, .set = {"rate=50"}};
    i.tool_version = "0.1.0";
    i.git_commit = "abc";
    i.openssl_version = "OpenSSL 3.5.7";
    i.cpu_model = "cpu";
    i.cores = 2;
    i.kernel = "Linux 6";
    i.hostname = "h";
    i.target = "embedded";
    i.seed = 7;
    i.trials_planned = 2;
    i.started = "2026-11-30T03:00:00Z";
    return i;
  }
  static std::vector<ArmRow> Arms() {
    nlohmann::ordered_json f1 = {{"mode", "fresh"}, {"group", "X25519"}};  // order kept
    nlohmann::ordered_json f2 = {{"mode", "fresh"}, {"group", "X25519MLKEM768"}};
    return {{1, "X25519", f1, {{"rate", 100}}}, {2, "X25519MLKEM768", f2, {{"rate", 100}}}};
  }
  // Load: n connections with every field set to something distinct, 2 requests each.
  static LoadResult Load(uint64_t n) {
    LoadResult r;
    for (uint64_t i = 0; i < n; ++i) {
      ConnectionRecord c;
      c.id = i;
      c.thread = static_cast<uint16_t>(i % 3);
      c.site = static_cast<uint8_t>(i % 4);
      c.mode = i % 2 ? ConnMode::kResume : ConnMode::kFresh;
      if (i % 3 == 2) {  // early data, accepted and rejected
        c.mode = ConnMode::kEarly;
        c.early_data = i % 2 ? EarlyData::kAccepted : EarlyData::kRejected;
        c.early_bytes = static_cast<uint32_t>(60 + i);
      }
      if (i % 4 == 1) {  // over QUIC
        c.protocol = Protocol::kH3;
        c.handshake_datagrams_sent = static_cast<uint32_t>(3 + i);
        c.handshake_datagrams_received = static_cast<uint32_t>(9 + i);
        c.initial_datagrams = 2;
        c.amplification_limited = i % 8 == 1;
        c.retried = i % 8 == 5;
      }
      if (i % 4 == 3) {  // over HTTP/2
        c.protocol = Protocol::kH2;
        c.h2_frames_before_response = static_cast<uint32_t>(2 + i % 3);
      }
      c.measured = i > 0;
      c.offered_session = i % 2 == 1;
      c.intended_start = static_cast<Nanos>(1000 + i);
      c.actual_start = c.intended_start + 5;
      c.tcp_established = c.actual_start + 100;
      c.tls_done = c.tcp_established + 900;
      c.closed = c.tls_done + 400;
      c.first_request = static_cast<uint32_t>(r.requests.size());
      c.request_count = 2;
      c.handshake_bytes_written = 1500 + i;
      c.handshake_bytes_read = 3400 + i;
      c.handshake_segments_read = static_cast<uint32_t>(3 + i % 5);
      c.client_hello_bytes = 1400;
      c.server_hello_bytes = 1200;
      c.certificate_bytes = i % 2 ? 0 : 700;
      c.certificate_verify_bytes = i % 2 ? 0 : 80;
      c.group = "X25519MLKEM768";
      c.signature_scheme = i % 2 ? 0 : 0x0403;
      c.cipher = "TLS_AES_256_GCM_SHA384";
      c.resumed = i % 2 == 1;
      c.hrr = i == 3;
      if (i == 4) {
        c.error = ErrorClass::kTlsAlert;
        c.error_detail = "handshake_failure";
        c.request_count = 0;
      }
      for (uint32_t k = 0; k < c.request_count; ++k) {
        r.requests.push_back(
            {c.tls_done + 10 + k, c.tls_done + 20 + k, c.tls_done + 30 + k, 200, 3});
      }
      r.connections.push_back(c);
    }
    r.measure_start = 1001;
    r.measure_end = 99999;
    return r;
  }
  static TrialRow Trial(uint32_t arm, uint32_t seq, const LoadResult* load) {
    TrialRow t;
    t.arm = arm;
    t.block = seq / 2;
    t.seq = seq;
    t.started = "2026-11-30T03:00:01Z";
    t.ended = "2026-11-30T03:00:11Z";
    t.valid = seq != 1;
    if (!t.valid) t.reasons = {"lag p99 1.4 ms over 1 ms"};
    t.summary = Summarize(*load);
    t.target.cpu_user_s = 1.5;
    t.server_cpu_s = 2.25;
    t.server_handshakes = 1000;
    t.client_cpu_s = 1.75;
    t.mono_anchor_ns = 5;
    t.wall_anchor_ns = 1'700'000'000'000'000'000;
    t.load = load;
    return t;
  }

  fs::path dir_;
};

TEST_F(ResultsTest, EveryFieldSurvivesTheRoundTrip) {
  const LoadResult load = Load(6);
  {
    auto w = RunWriter::Create(Path(), Info(), Arms());
    ASSERT_TRUE(w) << w.error().message;
    ASSERT_TRUE(w->WriteTrial(Trial(2, 0, &load)));
    ASSERT_TRUE(w->WriteTrial(Trial(1, 1, &load)));
    ASSERT_TRUE(w->MarkArmFailed(2, "cannot"));
    ASSERT_TRUE(w->Finish("2026-11-30T03:01:00Z", true));
  }
  auto db = OpenResults(dir_.string());  // a directory works as well as the file
  ASSERT_TRUE(db) << db.error().message;
  {
    auto mode = db->Prepare("PRAGMA journal_mode");
    ASSERT_TRUE(mode);
    ASSERT_TRUE(*mode->Step());
    EXPECT_EQ(mode->Text(0), "wal") << "readers may open the file while a run writes";
  }
  auto run = ReadRun(*db);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->info.title, Info().title);
  EXPECT_EQ(run->info.cores, 2u);
  EXPECT_EQ(run->info.seed, 7u);
  EXPECT_FALSE(run->info.options.full);
  EXPECT_EQ(run->info.options.set, std::vector<std::string>{"rate=50"});
  EXPECT_TRUE(run->complete);
  EXPECT_EQ(run->ended, "2026-11-30T03:01:00Z");
  ASSERT_EQ(run->arms.size(), 2u);
  EXPECT_EQ(run->arms[0].factors.begin().key(), "mode") << "factor order is kept";
  EXPECT_EQ(run->arms[0].status, ArmStatus::kMeasured);
  EXPECT_EQ(run->arms[1].status, ArmStatus::kFailed);
  EXPECT_EQ(run->arms[1].failure, "cannot");
  ASSERT_EQ(run->trials.size(), 2u);
  EXPECT_EQ(run->trials[0].arm, 2u);
  EXPECT_TRUE(run->trials[0].valid);
  EXPECT_FALSE(run->trials[1].valid);
  EXPECT_EQ(run->trials[1].reasons, std::vector<std::string>{"lag p99 1.4 ms over 1 ms"});
  EXPECT_DOUBLE_EQ(*run->trials[0].server_cpu_s, 2.25);
  EXPECT_EQ(*run->trials[0].server_handshakes, 1000u);

  auto rec = ReadTrialRecords(*db, run->trials[0].id);
  ASSERT_TRUE(rec) << rec.error().message;
  ASSERT_EQ(rec->load.connections.size(), load.connections.size());
  ASSERT_EQ(rec->load.requests.size(), load.requests.size());
  for (size_t i = 0; i < load.connections.size(); ++i) {
    const ConnectionRecord& a = load.connections[i];
    const ConnectionRecord& b = rec->load.connections[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.thread, b.thread);
    EXPECT_EQ(a.mode, b.mode);
    EXPECT_EQ(a.measured, b.measured);
    EXPECT_EQ(a.offered_session, b.offered_session);
    EXPECT_EQ(a.intended_start, b.intended_start);
    EXPECT_EQ(a.actual_start, b.actual_start);
    EXPECT_EQ(a.tcp_established, b.tcp_established);
    EXPECT_EQ(a.tls_done, b.tls_done);
    EXPECT_EQ(a.closed, b.closed);
    EXPECT_EQ(a.first_request, b.first_request);
    EXPECT_EQ(a.request_count, b.request_count);
    EXPECT_EQ(a.handshake_bytes_written, b.handshake_bytes_written);
    EXPECT_EQ(a.handshake_bytes_read, b.handshake_bytes_read);
    EXPECT_EQ(a.handshake_segments_read, b.handshake_segments_read);
    EXPECT_EQ(a.early_data, b.early_data);
    EXPECT_EQ(a.early_bytes, b.early_bytes);
    EXPECT_EQ(a.site, b.site);
    EXPECT_EQ(a.protocol, b.protocol);
    EXPECT_EQ(a.handshake_datagrams_sent, b.handshake_datagrams_sent);
    EXPECT_EQ(a.handshake_datagrams_received, b.handshake_datagrams_received);
    EXPECT_EQ(a.initial_datagrams, b.initial_datagrams);
    EXPECT_EQ(a.amplification_limited, b.amplification_limited);
    EXPECT_EQ(a.retried, b.retried);
    EXPECT_EQ(a.h2_frames_before_response, b.h2_frames_before_response);
    EXPECT_EQ(ColumnValues(a), ColumnValues(b)) << "every column of the list, whatever it adds";
    EXPECT_EQ(a.client_hello_bytes, b.client_hello_bytes);
    EXPECT_EQ(a.server_hello_bytes, b.server_hello_bytes);
    EXPECT_EQ(a.certificate_bytes, b.certificate_bytes);
    EXPECT_EQ(a.certificate_verify_bytes, b.certificate_verify_bytes);
    EXPECT_EQ(a.group, b.group);
    EXPECT_EQ(a.signature_scheme, b.signature_scheme);
    EXPECT_STREQ(a.cipher, b.cipher);
    EXPECT_EQ(a.resumed, b.resumed);
    EXPECT_EQ(a.hrr, b.hrr);
    EXPECT_EQ(a.error, b.error);
    EXPECT_EQ(a.error_detail, b.error_detail);
  }
  for (size_t i = 0; i < load.requests.size(); ++i) {
    EXPECT_EQ(load.requests[i].sent, rec->load.requests[i].sent);
    EXPECT_EQ(load.requests[i].first_byte, rec->load.requests[i].first_byte);
    EXPECT_EQ(load.requests[i].last_byte, rec->load.requests[i].last_byte);
    EXPECT_EQ(load.requests[i].status, rec->load.requests[i].status);
    EXPECT_EQ(load.requests[i].body_bytes, rec->load.requests[i].body_bytes);
  }
}

// The trial's JSON columns are typed records (trial_record.h): every member written comes
// back, including the ones only a merged or emulated run has, and an old file's shapes (a link
// of "null", a target of {"run_by": …}) read as the defaults.
TEST_F(ResultsTest, TheTrialsTypedRecordsSurviveTheRoundTrip) {
  const LoadResult load = Load(6);
  TrialRow t = Trial(1, 0, &load);
  t.summary.arm.mix = {{"resume", 80}, {"fresh", 20}};
  t.summary.errors_by_class = {{"timeout", 2}};
  t.summary.loadgen.threads = 3;
  t.summary.negotiated.early_rejected = 4;
  t.summary.invalid_reasons = {"made up"};
  t.target.handshakes = 77;
  t.target.details = {{"workers", 2}};
  t.target.ready_s = 0.0125;
  LinkRecord& wire = t.link.emplace();
  wire.stats.packets = 1234;
  wire.stats.release_error_p99_us = 12.5;
  wire.profile = "rtt70";
  wire.sites.push_back({.stats = {.packets = 600}, .site = "near", .describe = "rtt 30ms"});
  t.shards.push_back({.shard = 1, .host = "b", .reasons = {"late"}, .start_skew_ns = -5});
  RunInfo info = Info();
  info.networks["rtt70"] = {.rtt_ms = 70, .describe = "rtt 70ms"};
  info.networks["regions"].sites = {{.name = "near", .rtt_ms = 30}, {.name = "far"}};
  {
    auto w = RunWriter::Create(Path(), info, Arms());
    ASSERT_TRUE(w) << w.error().message;
    ASSERT_TRUE(w->WriteTrial(t));
    ASSERT_TRUE(w->WriteTrial(Trial(2, 1, &load)));
  }
  auto db = OpenResults(Path());
  ASSERT_TRUE(db) << db.error().message;
  auto run = ReadRun(*db);
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_EQ(run->info.networks.size(), 2u);
  EXPECT_EQ(run->info.networks.at("rtt70").rtt_ms, 70.0);
  EXPECT_EQ(run->info.networks.at("rtt70").describe, "rtt 70ms");
  EXPECT_FALSE(run->info.networks.at("regions").rtt_ms);
  ASSERT_EQ(run->info.networks.at("regions").sites.size(), 2u);
  EXPECT_EQ(run->info.networks.at("regions").sites[0].rtt_ms, 30.0);
  EXPECT_EQ(run->info.networks.at("regions").sites[1].name, "far");
  const TrialRecord& r = run->trials.at(0);
  EXPECT_EQ(r.summary.connections, load.connections.size() - 1) << "warm-up left out";
  EXPECT_EQ(r.summary.phase(Phase::kHandshake).count, t.summary.phase(Phase::kHandshake).count);
  EXPECT_DOUBLE_EQ(r.summary.phase(Phase::kHandshake).p50, t.summary.phase(Phase::kHandshake).p50);
  EXPECT_EQ(r.summary.arm.mix, t.summary.arm.mix) << "the mix keeps its order";
  EXPECT_EQ(r.summary.errors_by_class, t.summary.errors_by_class);
  EXPECT_EQ(r.summary.loadgen.threads, 3u);
  EXPECT_EQ(r.summary.negotiated.early_rejected, 4u);
  EXPECT_EQ(r.summary.negotiated.groups, t.summary.negotiated.groups);
  EXPECT_EQ(r.summary.invalid_reasons, t.summary.invalid_reasons);
  EXPECT_DOUBLE_EQ(r.target.cpu_user_s, 1.5);
  EXPECT_TRUE(std::isnan(r.target.wall_s)) << "not measured stays not measured, never 0";
  EXPECT_EQ(r.target.handshakes, 77u);
  EXPECT_EQ(r.target.details, t.target.details);
  EXPECT_DOUBLE_EQ(r.target.ready_s, 0.0125);
  ASSERT_TRUE(r.link);
  EXPECT_EQ(r.link->stats.packets, 1234u);
  EXPECT_DOUBLE_EQ(r.link->stats.release_error_p99_us, 12.5);
  EXPECT_EQ(r.link->profile, "rtt70");
  ASSERT_EQ(r.link->sites.size(), 1u);
  EXPECT_EQ(r.link->sites[0].site, "near");
  EXPECT_EQ(r.link->sites[0].stats.packets, 600u);
  ASSERT_EQ(r.shards.size(), 1u);
  EXPECT_EQ(r.shards[0].host, "b");
  EXPECT_EQ(r.shards[0].reasons, std::vector<std::string>{"late"});
  EXPECT_EQ(r.shards[0].start_skew_ns, -5);
  const TrialRecord& plain = run->trials.at(1);
  EXPECT_FALSE(plain.link) << "loopback: no link record";
  EXPECT_TRUE(plain.shards.empty()) << "not merged: no shard views";

  // Written by an older version: other shapes, fewer keys.
  {
    auto w = Db::Open(Path(), false, false);
    ASSERT_TRUE(w);
    ASSERT_TRUE(
        w->Exec("UPDATE trials SET target_json = '{\"run_by\": \"shard 0\"}', "
                "link_json = 'null', summary_json = '{\"connections\": 9}' WHERE seq = 0"));
  }
  auto again = ReadRun(*db);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->trials[0].target.run_by, "shard 0");
  EXPECT_TRUE(std::isnan(again->trials[0].target.cpu_user_s));
  EXPECT_FALSE(again->trials[0].link);
  EXPECT_EQ(again->trials[0].summary.connections, 9u);
  EXPECT_EQ(again->trials[0].summary.loadgen.threads, 0u);

  // A value of the wrong type is a corrupt file, named down to the key.
  {
    auto w = Db::Open(Path(), false, false);
    ASSERT_TRUE(w);
    ASSERT_TRUE(
        w->Exec("UPDATE trials SET summary_json = "
                "'{\"loadgen\": {\"threads\": \"two\"}}' WHERE seq = 1"));
  }
  auto bad = ReadRun(*db);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("corrupt results database: trial 2's summary_json: "
                                     "loadgen.threads: expected an integer from 0 to 4294967295, "
                                     "got string"),
            std::string::npos)
      << bad.error().message;
}

TEST_F(ResultsTest, ATrialIsAllOrNothingAndResumeReplacesInterruptedTrials) {
  const LoadResult load = Load(4);
  {
    auto w = RunWriter::Create(Path(), Info(), Arms());
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->WriteTrial(Trial(1, 0, &load)));
    // The same seq again violates UNIQUE after the connections would have gone in: nothing
    // of the failed trial may remain.
    EXPECT_FALSE(w->WriteTrial(Trial(1, 0, &load)));
    TrialRow cut = Trial(2, 1, &load);
    cut.interrupted = true;
    ASSERT_TRUE(w->WriteTrial(cut));
    // No Finish: as after a crash.
  }
  {
    auto db = OpenResults(Path());
    ASSERT_TRUE(db);
    auto run = ReadRun(*db);
    ASSERT_TRUE(run);
    EXPECT_FALSE(run->complete);
    EXPECT_TRUE(run->ended.empty());
    ASSERT_EQ(run->trials.size(), 2u);
    auto rec = ReadTrialRecords(*db, run->trials[0].id);
    ASSERT_TRUE(rec);
    EXPECT_EQ(rec->load.connections.size(), 4u) << "the failed duplicate added no rows";
  }
  auto w = RunWriter::Reopen(Path());
  ASSERT_TRUE(w) << w.error().message;
  auto run = ReadRun(w->db());
  ASSERT_TRUE(run);
  ASSERT_EQ(run->trials.size(), 1u) << "the interrupted trial is removed so that it runs again";
  EXPECT_EQ(run->trials[0].seq, 0u);
  ASSERT_TRUE(w->WriteTrial(Trial(2, 1, &load)));
  ASSERT_TRUE(w->Finish("2026-11-30T03:09:00Z", true));
}

// A version-3 file (before early data): read as no early data, and --resume adds the
// columns, so that the trials it still runs are stored whole.
TEST_F(ResultsTest, AVersionThreeFileIsReadAndResumedWithTheEarlyDataColumns) {
  const LoadResult load = Load(3);
  {
    auto w = RunWriter::Create(Path(), Info(), Arms());
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->WriteTrial(Trial(1, 0, &load)));
  }
  {
    auto db = Db::Open(Path(), false, false);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->Exec(VersionThree()));
  }
  {
    auto db = OpenResults(Path());
    ASSERT_TRUE(db) << db.error().message;
    auto run = ReadRun(*db);
    ASSERT_TRUE(run);
    auto rec = ReadTrialRecords(*db, run->trials[0].id);
    ASSERT_TRUE(rec) << rec.error().message;
    for (const ConnectionRecord& c : rec->load.connections) {
      EXPECT_EQ(c.early_data, EarlyData::kNone);
      EXPECT_EQ(c.early_bytes, 0u);
      EXPECT_EQ(c.protocol, Protocol::kH1);  // before HTTP/3 every connection was over TCP
      EXPECT_EQ(c.initial_datagrams, 0u);
      EXPECT_FALSE(c.retried);
    }
  }
  auto w = RunWriter::Reopen(Path());
  ASSERT_TRUE(w) << w.error().message;
  ASSERT_TRUE(w->WriteTrial(Trial(2, 1, &load)));
  ASSERT_TRUE(w->Finish("2026-11-30T03:09:00Z", true));
  auto run = ReadRun(w->db());
  ASSERT_TRUE(run);
  auto rec = ReadTrialRecords(w->db(), run->trials[1].id);
  ASSERT_TRUE(rec) << rec.error().message;
  EXPECT_EQ(rec->load.connections[2].early_data, EarlyData::kRejected);
  EXPECT_EQ(rec->load.connections[2].early_bytes, 62u);
  // Upgraded through version 4 to 5: one shard of one, every connection shard 0's.
  EXPECT_FALSE(run->info.merged);
  EXPECT_EQ(run->info.shard.index, 0u);
  EXPECT_EQ(run->info.shard.count, 1u);
  EXPECT_EQ(rec->shards, std::vector<uint32_t>(rec->load.connections.size(), 0));
  // … and through 5 to 6: the old trial's connections came from site 0, the new one's keep
  // theirs.
  auto old = ReadTrialRecords(w->db(), run->trials[0].id);
  ASSERT_TRUE(old) << old.error().message;
  for (const ConnectionRecord& c : old->load.connections) EXPECT_EQ(c.site, 0);
  ASSERT_EQ(rec->load.connections.size(), 3u);
  EXPECT_EQ(rec->load.connections[2].site, 2);
}

// The per-connection tables are made from their column lists, and a file upgraded from an
// older version (--resume) ends with the same columns as a new one: the same names in the same
// order, types, NOT NULLs and defaults (a merge's copy and the reader address them by
// position).
TEST_F(ResultsTest, AnUpgradedFileHasTheColumnsOfANewOne) {
  auto columns = [](Db& db, const std::string& table) {
    std::vector<std::string> out;
    auto q = db.Prepare(
        "SELECT name, type, \"notnull\", coalesce(dflt_value, '') FROM "
        "pragma_table_info('" +
        table + "') ORDER BY cid");
    EXPECT_TRUE(q.ok());
    while (q.ok()) {
      auto row = q->Step();
      if (!row.ok() || !*row) break;
      out.push_back(q->Text(0) + " " + q->Text(1) + " " + q->Text(2) + " " + q->Text(3));
    }
    return out;
  };
  auto fresh = RunWriter::Create(Path("new.sqlite"), Info(), Arms());
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  auto names = [&](const std::vector<ListedColumn>& list) {
    std::vector<std::string> out;
    for (const ListedColumn& l : list) out.emplace_back(l.column.name);
    return out;
  };
  std::vector<std::string> conn_names, req_names;
  for (const std::string& c : columns(fresh->db(), "connections")) {
    conn_names.push_back(c.substr(0, c.find(' ')));
  }
  for (const std::string& c : columns(fresh->db(), "requests")) {
    req_names.push_back(c.substr(0, c.find(' ')));
  }
  EXPECT_EQ(conn_names, names(ConnectionColumnList()));
  EXPECT_EQ(req_names, names(RequestColumnList()));
  {
    auto old = RunWriter::Create(Path(), Info(), Arms());
    ASSERT_TRUE(old.ok());
    ASSERT_TRUE(old->db().Exec(VersionThree()));
  }
  auto upgraded = RunWriter::Reopen(Path());
  ASSERT_TRUE(upgraded.ok()) << upgraded.error().message;
  for (const std::string table : {"connections", "requests"}) {
    EXPECT_EQ(columns(upgraded->db(), table), columns(fresh->db(), table)) << table;
  }
}

// The round trips above compare every column, so the data they store must give every column a
// value other than a new record's somewhere: a column added to the list and not to Load() fails
// here, not silently in a test that compares zeros.
TEST_F(ResultsTest, TheTestDataFillsEveryColumn) {
  const LoadResult load = Load(16);
  const auto defaults = ColumnValues(ConnectionRecord{});
  std::vector<bool> filled(defaults.size(), false);
  for (const ConnectionRecord& c : load.connections) {
    const auto values = ColumnValues(c);
    for (size_t k = 0; k < values.size(); ++k) filled[k] = filled[k] || values[k] != defaults[k];
  }
  for (size_t k = 0; k < defaults.size(); ++k) {
    EXPECT_TRUE(filled[k]) << defaults[k].first << " is its default in every test connection";
  }
}

// A trial's rows copied into another file's trial (a merge): after the rows already there,
// every field kept, ids and request indices renumbered, timestamps shifted (0 stays 0), the
// shard set.
TEST_F(ResultsTest, ACopiedTrialKeepsEveryFieldRenumberedAndShifted) {
  const LoadResult source_load = Load(6);
  const LoadResult target_load = Load(2);
  auto a = RunWriter::Create(Path("a.sqlite"), Info(), Arms());
  auto b = RunWriter::Create(Path("b.sqlite"), Info(), Arms());
  ASSERT_TRUE(a.ok() && b.ok());
  auto from = a->WriteTrial(Trial(1, 0, &source_load));
  auto to = b->WriteTrial(Trial(1, 0, &target_load));
  ASSERT_TRUE(from.ok() && to.ok());
  auto extent = ReadTrialExtent(b->db(), *to);
  ASSERT_TRUE(extent.ok()) << extent.error().message;
  EXPECT_EQ(extent->next_id, 2);
  EXPECT_EQ(extent->requests, 4);
  const TrialCopy copy{.file = Path("a.sqlite"),
                       .version = kSchemaVersion,
                       .from = *from,
                       .connection_offset = extent->next_id,
                       .request_offset = extent->requests,
                       .shift = 1000,
                       .shard = 3};
  ASSERT_TRUE(CopyTrialRows(b->db(), copy, *to).ok());
  auto n = CountConnections(b->db(), *to);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 8u);
  auto got = ReadTrialRecords(b->db(), *to);
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_EQ(got->load.connections.size(), 8u);
  ASSERT_EQ(got->load.requests.size(), 4u + source_load.requests.size());
  auto shifted = [](Nanos t) { return t == 0 ? Nanos{0} : t + 1000; };
  for (size_t i = 0; i < source_load.connections.size(); ++i) {
    const ConnectionRecord& want = source_load.connections[i];
    const ConnectionRecord& c = got->load.connections[2 + i];
    EXPECT_EQ(c.id, want.id + 2);
    EXPECT_EQ(got->shards[2 + i], 3u);
    EXPECT_EQ(c.thread, want.thread);
    EXPECT_EQ(c.site, want.site);
    EXPECT_EQ(c.mode, want.mode);
    EXPECT_EQ(c.early_data, want.early_data);
    EXPECT_EQ(c.early_bytes, want.early_bytes);
    EXPECT_EQ(c.measured, want.measured);
    EXPECT_EQ(c.intended_start, shifted(want.intended_start));
    EXPECT_EQ(c.actual_start, shifted(want.actual_start));
    EXPECT_EQ(c.tls_done, shifted(want.tls_done));
    EXPECT_EQ(c.closed, shifted(want.closed));
    EXPECT_EQ(c.first_request, want.first_request + 4);
    EXPECT_EQ(c.request_count, want.request_count);
    EXPECT_EQ(c.handshake_segments_read, want.handshake_segments_read);
    EXPECT_EQ(c.certificate_bytes, want.certificate_bytes);
    EXPECT_EQ(c.group, want.group);
    EXPECT_EQ(c.signature_scheme, want.signature_scheme);
    EXPECT_EQ(c.hrr, want.hrr);
    EXPECT_EQ(c.error, want.error);
    EXPECT_EQ(c.error_detail, want.error_detail);
  }
  for (size_t k = 0; k < source_load.requests.size(); ++k) {
    const auto& want = source_load.requests[k];
    const auto& r = got->load.requests[4 + k];
    EXPECT_EQ(r.sent, shifted(want.sent));
    EXPECT_EQ(r.first_byte, shifted(want.first_byte));
    EXPECT_EQ(r.last_byte, shifted(want.last_byte));
    EXPECT_EQ(r.status, want.status);
    EXPECT_EQ(r.body_bytes, want.body_bytes);
  }
  // The rows already there are untouched.
  EXPECT_EQ(got->load.connections[1].intended_start, target_load.connections[1].intended_start);
  EXPECT_EQ(got->shards[1], 0u);
}

TEST_F(ResultsTest, RefusesToOverwriteAndExplainsForeignFiles) {
  {
    auto w = RunWriter::Create(Path(), Info(), Arms());
    ASSERT_TRUE(w);
  }
  auto again = RunWriter::Create(Path(), Info(), Arms());
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("exists already"), std::string::npos);

  auto missing = OpenResults(Path("nope.sqlite"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no results database"), std::string::npos);

  { std::ofstream(Path("text.sqlite")) << "this is not a database, just some text\n"; }
  auto text = OpenResults(Path("text.sqlite"));
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("not a pqc-bench results database"), std::string::npos)
      << text.error().message;

  {
    auto foreign = Db::Open(Path("foreign.sqlite"), true, false);
    ASSERT_TRUE(foreign);
    ASSERT_TRUE(foreign->Exec("CREATE TABLE people(name TEXT)"));
  }
  auto f = OpenResults(Path("foreign.sqlite"));
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("not a pqc-bench results database"), std::string::npos)
      << f.error().message;

  {
    auto newer = Db::Open(Path("newer.sqlite"), true, false);
    ASSERT_TRUE(newer);
    ASSERT_TRUE(CreateSchema(*newer));
    ASSERT_TRUE(newer->Exec("UPDATE meta SET value = '99' WHERE key = 'version'"));
  }
  auto n = OpenResults(Path("newer.sqlite"));
  ASSERT_FALSE(n);
  EXPECT_NE(n.error().message.find("version 99"), std::string::npos) << n.error().message;

  // Corrupt JSON inside an otherwise valid database.
  {
    auto db = Db::Open(Path(), false, false);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->Exec("UPDATE arms SET settings_json = '{not json' WHERE id = 1"));
  }
  auto db = OpenResults(Path());
  ASSERT_TRUE(db);
  auto run = ReadRun(*db);
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("corrupt results database"), std::string::npos);

  // An arm status no version wrote.
  {
    auto w = Db::Open(Path(), false, false);
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->Exec("UPDATE arms SET settings_json = '{}', status = 'maybe' WHERE id = 1"));
  }
  auto status = ReadRun(*db);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("corrupt results database: arm status 'maybe'"),
            std::string::npos)
      << status.error().message;
}

}  // namespace
}  // namespace pqc::results
