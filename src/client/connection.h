// connection — one client connection of a load thread, over TCP (tcp_connection.h: connect,
// TLS, HTTP/1.1) or QUIC (quic_connection.h: HTTP/3): started by the worker, driven by the
// thread's EventLoop, every step timestamped into its ConnectionRecord, a failure an error class
// in the record, never an exception. The worker sees only this interface.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "records/load_options.h"
#include "records/record.h"
#include "client/session_store.h"
#include "net/event_loop.h"
#include "tls/inspector.h"
#include "tls/ossl_ptr.h"

namespace pqc {

// ConnectionEnv: what a thread's connections share (owned by the worker).
struct ConnectionEnv {
  EventLoop* loop;
  SSL_CTX* ctx;
  SessionStore* sessions;
  const LoadOptions* options;
  std::string request_keep_alive;           // the request bytes, built once (HTTP/1.1)
  std::string request_close;                // the last request of a connection asks to close
  std::vector<char> read_buffer;            // one per thread: responses are consumed as they arrive
  std::vector<class Connection*> finished;  // done since the worker last collected
};

class Connection {
 public:
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  virtual ~Connection() = default;

  // Start: begins the connection; it may be done() when this returns (refused).
  virtual void Start() = 0;
  // Abort: ends an unfinished connection with this error (timeouts, drain).
  virtual void Abort(ErrorClass error, std::string detail) = 0;
  virtual bool done() const = 0;
  // idle: waiting out --request-interval on its own timer, so not subject to the timeout.
  virtual bool idle() const { return false; }

  Nanos last_progress() const { return last_progress_; }
  ConnectionRecord& record() { return record_; }
  std::vector<RequestRecord>& requests() { return requests_; }

  size_t slot = 0;  // position in the worker's table of live connections

 protected:
  Connection(ConnectionEnv& env, ConnectionRecord record) : env_(env), record_(std::move(record)) {}

  ConnectionEnv& env_;
  ConnectionRecord record_;
  std::vector<RequestRecord> requests_;
  Nanos last_progress_ = 0;
};

// RecordNegotiated: what a completed handshake negotiated and its messages' sizes, from the
// message callback's facts and the connection, into `record` (over TCP and QUIC alike).
void RecordNegotiated(const HandshakeFacts& facts, SSL* ssl, ConnectionRecord& record);

}  // namespace pqc
