// client_record — one connection as the observatory records it (`serve --clients`): what the
// client offered (its first ClientHello), what the server did with it, and who it said it was
// (the first request's User-Agent). The embedded server fills it; a sink stores it (SQLite,
// results/client_log.h); `report --clients` reads it back. In this layer because both the
// server and the results store use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tls/client_hello.h"

namespace pqc {

enum class ClientOutcome {
  kOk,         // handshake completed
  kFailed,     // the handshake failed or was abandoned (see `failure`)
  kMalformed,  // the ClientHello could not be parsed (see `failure`); connection closed
  kOversize,   // the ClientHello was over kMaxClientHelloBytes; connection closed
};
std::string_view ClientOutcomeName(ClientOutcome o);
// ParseClientOutcome: the outcome ClientOutcomeName names `text` ("ok", "malformed", ...); none
// for another text.
std::optional<ClientOutcome> ParseClientOutcome(std::string_view text);

struct ClientRecord {
  int64_t time_unix_ns = 0;  // when the connection was accepted
  std::string peer;          // client address "HOST:PORT"
  ClientOutcome outcome = ClientOutcome::kFailed;
  std::string failure;    // why, for kFailed / kMalformed / kOversize
  ClientHelloInfo hello;  // the first ClientHello (empty lists when unparsed)
  // Data segments the server had received when the first ClientHello was complete (the
  // kernel's tcpi_data_segs_in): the segments it took (0-RTT data sent with it may add one).
  uint32_t hello_segments = 0;
  bool hrr = false;               // the server asked for another key share
  std::string group;              // negotiated ("" if none)
  uint16_t signature_scheme = 0;  // the server's CertificateVerify; 0 when resumed or failed
  std::string cipher;             // negotiated
  bool resumed = false;
  bool early_data_accepted = false;
  std::string user_agent;  // of the first request; "" when none came
};

// ClientRecordSink: where the server puts finished records. Add is called from every worker
// thread: an implementation must be thread-safe and must not block for long.
class ClientRecordSink {
 public:
  virtual ~ClientRecordSink() = default;
  virtual void Add(ClientRecord record) = 0;
};

}  // namespace pqc
