#include "results/client_log.h"

#include <fmt/format.h>

#include <chrono>
#include <deque>

#include "results/sqlite_db.h"
#include "tls/algorithms.h"

namespace pqc::results {
namespace {

constexpr size_t kBatch = 1000;          // rows per transaction, at most
constexpr size_t kMaxBacklog = 100'000;  // records waiting for the writer, at most
constexpr auto kFlushEvery = std::chrono::milliseconds(200);

constexpr std::string_view kSchema = R"(
CREATE TABLE IF NOT EXISTS client_connections (
  id INTEGER PRIMARY KEY,
  time_unix_ns INTEGER NOT NULL,
  peer TEXT NOT NULL,
  outcome TEXT NOT NULL,          -- ok | failed | malformed | oversize
  failure TEXT NOT NULL,
  hello_bytes INTEGER NOT NULL,   -- the first ClientHello message, header included
  hello_segments INTEGER NOT NULL,-- TCP data segments received when it was complete
  versions TEXT NOT NULL,         -- supported_versions, ':'-separated, client order
  ciphers TEXT NOT NULL,
  groups TEXT NOT NULL,           -- supported_groups
  key_shares TEXT NOT NULL,       -- the groups key_share carries
  sigalgs TEXT NOT NULL,
  alpn TEXT NOT NULL,             -- ','-separated
  sni TEXT NOT NULL,
  grease INTEGER NOT NULL,        -- GREASE values seen (dropped from the lists)
  early_data_offered INTEGER NOT NULL,
  psk_offered INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,      -- tls/client_hello.h ClientHelloFingerprint
  hrr INTEGER NOT NULL,
  negotiated_group TEXT NOT NULL,
  signature_scheme TEXT NOT NULL,
  cipher TEXT NOT NULL,
  resumed INTEGER NOT NULL,
  early_data_accepted INTEGER NOT NULL,
  user_agent TEXT NOT NULL
);
)";

constexpr std::string_view kColumns =
    "time_unix_ns, peer, outcome, failure, hello_bytes, hello_segments, versions, ciphers, "
    "groups, key_shares, sigalgs, alpn, sni, grease, early_data_offered, psk_offered, "
    "fingerprint, hrr, negotiated_group, signature_scheme, cipher, resumed, "
    "early_data_accepted, user_agent";

template <typename F>
std::string Joined(const std::vector<uint16_t>& v, F name) {
  std::string out;
  for (uint16_t x : v) {
    if (!out.empty()) out += ':';
    out += name(x);
  }
  return out;
}

}  // namespace

ClientLogRow ClientLogRowOf(const ClientRecord& r) {
  ClientLogRow row;
  const ClientHelloInfo& h = r.hello;
  row.time_unix_ns = r.time_unix_ns;
  row.peer = r.peer;
  row.outcome = std::string(ClientOutcomeName(r.outcome));
  row.failure = r.failure;
  row.hello_bytes = h.bytes;
  row.hello_segments = r.hello_segments;
  row.versions = Joined(h.versions, VersionName);
  row.ciphers = Joined(h.ciphers, CipherSuiteName);
  row.groups = Joined(h.groups, OfferedGroupName);
  row.key_shares = Joined(h.key_shares, OfferedGroupName);
  row.sigalgs = Joined(h.sigalgs, SignatureSchemeName);
  for (const std::string& a : h.alpn) row.alpn += (row.alpn.empty() ? "" : ",") + a;
  row.sni = h.sni;
  row.grease = h.grease;
  row.early_data_offered = h.early_data;
  row.psk_offered = h.psk;
  // An unparsed ClientHello has no lists to name a client by.
  row.fingerprint = h.ciphers.empty() ? "" : ClientHelloFingerprint(h);
  row.hrr = r.hrr;
  row.group = r.group;
  row.signature_scheme = r.signature_scheme == 0 ? "" : SignatureSchemeName(r.signature_scheme);
  row.cipher = r.cipher;
  row.resumed = r.resumed;
  row.early_data_accepted = r.early_data_accepted;
  row.user_agent = r.user_agent;
  return row;
}

struct ClientLogWriter::State {
  Db db;
  Stmt insert;
  uint64_t max_rows;
  std::mutex mu;
  std::condition_variable wake;
  std::deque<ClientRecord> backlog;  // guarded by mu
  bool closing = false;              // guarded by mu
  uint64_t accepted = 0;             // records taken (≤ max_rows), guarded by mu
  uint64_t dropped = 0;              // guarded by mu
  uint64_t written = 0;              // writer thread only until Close
  std::string error;                 // writer thread only until Close
};

Result<std::unique_ptr<ClientLogWriter>> ClientLogWriter::Open(const std::string& path,
                                                               uint64_t max_rows) {
  auto db = Db::Open(path, /*create=*/true, /*read_only=*/false);
  if (!db) return db.error();
  if (Status s = db->Exec("PRAGMA journal_mode=WAL"); !s) return s.error();
  if (Status s = db->Exec(kSchema); !s) return s.error();
  auto stmt =
      db->Prepare(fmt::format("INSERT INTO client_connections ({}) VALUES "
                              "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                              kColumns));
  if (!stmt) return stmt.error();
  auto st = std::unique_ptr<State>(new State{std::move(*db), std::move(*stmt), max_rows});
  std::unique_ptr<ClientLogWriter> w(new ClientLogWriter(std::move(st)));
  try {
    w->writer_ = std::thread([p = w.get()] { p->Run(); });
  } catch (const std::system_error& e) {
    return MakeError(ErrorKind::kSystem, fmt::format("client log writer thread: {}", e.what()));
  }
  return w;
}

ClientLogWriter::ClientLogWriter(std::unique_ptr<State> state) : st_(std::move(state)) {}

ClientLogWriter::~ClientLogWriter() {
  (void)Close();
}

void ClientLogWriter::Add(ClientRecord record) {
  std::lock_guard lock(st_->mu);
  if (st_->closing || st_->accepted >= st_->max_rows || st_->backlog.size() >= kMaxBacklog) {
    ++st_->dropped;
    return;
  }
  ++st_->accepted;
  st_->backlog.push_back(std::move(record));
  if (st_->backlog.size() >= kBatch) st_->wake.notify_one();
}

void ClientLogWriter::Run() {
  std::vector<ClientRecord> batch;
  for (;;) {
    bool last = false;
    {
      std::unique_lock lock(st_->mu);
      st_->wake.wait_for(lock, kFlushEvery,
                         [this] { return st_->closing || st_->backlog.size() >= kBatch; });
      last = st_->closing;
      // Bounded: at most kBatch per transaction; the rest next time round (at once).
      while (!st_->backlog.empty() && batch.size() < kBatch) {
        batch.push_back(std::move(st_->backlog.front()));
        st_->backlog.pop_front();
      }
      if (last && !st_->backlog.empty()) last = false;  // drain before stopping
    }
    if (!batch.empty() && st_->error.empty()) {
      Status s = [&]() -> Status {
        auto tx = Transaction::Begin(st_->db);
        if (!tx) return tx.error();
        for (const ClientRecord& r : batch) {
          const ClientLogRow row = ClientLogRowOf(r);
          Stmt& q = st_->insert;
          int i = 0;
          q.Bind(++i, row.time_unix_ns);
          q.Bind(++i, row.peer);
          q.Bind(++i, row.outcome);
          q.Bind(++i, row.failure);
          q.Bind(++i, row.hello_bytes);
          q.Bind(++i, row.hello_segments);
          q.Bind(++i, row.versions);
          q.Bind(++i, row.ciphers);
          q.Bind(++i, row.groups);
          q.Bind(++i, row.key_shares);
          q.Bind(++i, row.sigalgs);
          q.Bind(++i, row.alpn);
          q.Bind(++i, row.sni);
          q.Bind(++i, row.grease);
          q.Bind(++i, static_cast<int64_t>(row.early_data_offered));
          q.Bind(++i, static_cast<int64_t>(row.psk_offered));
          q.Bind(++i, row.fingerprint);
          q.Bind(++i, static_cast<int64_t>(row.hrr));
          q.Bind(++i, row.group);
          q.Bind(++i, row.signature_scheme);
          q.Bind(++i, row.cipher);
          q.Bind(++i, static_cast<int64_t>(row.resumed));
          q.Bind(++i, static_cast<int64_t>(row.early_data_accepted));
          q.Bind(++i, row.user_agent);
          if (Status run = q.Run(); !run) return run;
        }
        return tx->Commit();
      }();
      if (s) {
        st_->written += batch.size();
      } else {
        st_->error = s.error().message;
      }
    }
    if (!st_->error.empty() && !batch.empty()) {
      std::lock_guard lock(st_->mu);
      st_->dropped += batch.size();
    }
    batch.clear();
    if (last) return;
  }
}

Status ClientLogWriter::Close() {
  {
    std::lock_guard lock(st_->mu);
    st_->closing = true;
  }
  st_->wake.notify_one();
  if (writer_.joinable()) writer_.join();
  if (!st_->error.empty()) {
    return MakeError(ErrorKind::kIo, fmt::format("client log {}: {}", st_->db.path(), st_->error));
  }
  return {};
}

uint64_t ClientLogWriter::written() const {
  return st_->written;
}

uint64_t ClientLogWriter::dropped() const {
  std::lock_guard lock(st_->mu);
  return st_->dropped;
}

Result<std::vector<ClientLogRow>> ReadClientLog(const std::string& path) {
  auto db = Db::Open(path, /*create=*/false, /*read_only=*/true);
  if (!db) return db.error();
  auto q = db->Prepare(fmt::format("SELECT id, {} FROM client_connections ORDER BY id", kColumns));
  if (!q) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("{} is not a client log (written by serve --clients): {}", path,
                                 q.error().message));
  }
  std::vector<ClientLogRow> rows;
  for (;;) {
    auto more = q->Step();
    if (!more) return more.error();
    if (!*more) break;
    ClientLogRow r;
    int c = 0;
    r.id = q->Int(c++);
    r.time_unix_ns = q->Int(c++);
    r.peer = q->Text(c++);
    r.outcome = q->Text(c++);
    r.failure = q->Text(c++);
    r.hello_bytes = q->Int(c++);
    r.hello_segments = q->Int(c++);
    r.versions = q->Text(c++);
    r.ciphers = q->Text(c++);
    r.groups = q->Text(c++);
    r.key_shares = q->Text(c++);
    r.sigalgs = q->Text(c++);
    r.alpn = q->Text(c++);
    r.sni = q->Text(c++);
    r.grease = q->Int(c++);
    r.early_data_offered = q->Int(c++) != 0;
    r.psk_offered = q->Int(c++) != 0;
    r.fingerprint = q->Text(c++);
    r.hrr = q->Int(c++) != 0;
    r.group = q->Text(c++);
    r.signature_scheme = q->Text(c++);
    r.cipher = q->Text(c++);
    r.resumed = q->Int(c++) != 0;
    r.early_data_accepted = q->Int(c++) != 0;
    r.user_agent = q->Text(c++);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace pqc::results
