// client_log — the observatory's store (`serve --clients FILE`): one SQLite row per
// connection, what its client offered and what it negotiated, written by a thread of its own
// in batches so that the server's event loops only append to a list. Bounded: at most
// `max_rows` rows per file and a bounded backlog; what does not fit is counted as dropped,
// never held. `report --clients FILE` reads it back (ReadClientLog).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "tls/client_record.h"

namespace pqc::results {

// ClientLogRow: a row as stored: lists as names in the client's order (':'-separated groups,
// key shares, schemes, cipher suites and versions, ','-separated ALPN), GREASE dropped.
struct ClientLogRow {
  int64_t id = 0, time_unix_ns = 0;
  std::string peer, outcome, failure;
  int64_t hello_bytes = 0, hello_segments = 0, grease = 0;
  std::string versions, ciphers, groups, key_shares, sigalgs, alpn, sni, fingerprint;
  bool early_data_offered = false, psk_offered = false, hrr = false;
  std::string group, signature_scheme, cipher;
  bool resumed = false, early_data_accepted = false;
  std::string user_agent;
};

// ClientLogRowOf: the row a record becomes (id and nothing else left unset).
ClientLogRow ClientLogRowOf(const ClientRecord& record);

inline constexpr uint64_t kDefaultMaxClientRows = 1'000'000;

class ClientLogWriter final : public ClientRecordSink {
 public:
  // Open: creates (or appends to) the file and its table, and starts the writer thread.
  static Result<std::unique_ptr<ClientLogWriter>> Open(const std::string& path,
                                                       uint64_t max_rows = kDefaultMaxClientRows);
  ClientLogWriter(const ClientLogWriter&) = delete;
  ClientLogWriter& operator=(const ClientLogWriter&) = delete;
  ~ClientLogWriter() override;

  void Add(ClientRecord record) override;
  // Close: writes what is pending and stops the writer; the first write error, if any. The
  // counts are final after it.
  Status Close();
  uint64_t written() const;
  uint64_t dropped() const;

 private:
  struct State;
  explicit ClientLogWriter(std::unique_ptr<State> state);
  void Run();

  std::unique_ptr<State> st_;
  std::thread writer_;
};

// ReadClientLog: every row, in the order written; a file that is not a client log is an error
// naming it.
Result<std::vector<ClientLogRow>> ReadClientLog(const std::string& path);

}  // namespace pqc::results
