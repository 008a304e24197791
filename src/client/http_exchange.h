// http_exchange — the HTTP half of a connection over TLS over TCP: what to write for each
// request and what the bytes read mean, apart from the TLS stream (tcp_connection.h) that
// carries them, so that HTTP/1.1 and HTTP/2 share the connect, the handshake, early data, the
// session store and every timestamp. One per connection; bytes in, bytes out, no I/O. HTTP/1.1
// has one request in flight at a time; HTTP/2 as many as the arm's streams.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/error.h"
#include "records/record.h"

namespace pqc {

struct ConnectionEnv;

// RequestEvent: what the bytes fed did to one request (`request`: the connection's count of
// BeginRequest calls before it) — began its response (its first byte: HTTP/1.1's status line,
// HTTP/2's HEADERS, not the connection's own frames before them) or ended it, with its status
// and body bytes.
struct RequestEvent {
  size_t request = 0;
  bool began = false;
  bool completed = false;
  uint32_t status = 0;
  uint64_t body_bytes = 0;
};

struct ExchangeStep {
  // kComplete: at least one response ended (events say which).
  enum Status { kNeedMore, kComplete, kError } status = kNeedMore;
  // events: one per request the bytes began or ended; valid until the next Feed or FeedEof.
  std::span<const RequestEvent> events;
};

class HttpExchange {
 public:
  HttpExchange() = default;
  HttpExchange(const HttpExchange&) = delete;
  HttpExchange& operator=(const HttpExchange&) = delete;
  virtual ~HttpExchange() = default;

  // BeginRequest: the next request, `last` when the connection carries no more after it. Only
  // HTTP/2 takes one while others are in flight.
  virtual Status BeginRequest(bool last) = 0;
  // Output: the bytes waiting to be written; the same bytes (and no fewer) until Wrote says
  // some went, as a retried SSL_write needs.
  virtual std::string_view Output() = 0;
  virtual void Wrote(size_t n) = 0;
  // Rewind: everything written so far goes again — early data the server rejected, which it
  // never read.
  virtual void Rewind() = 0;
  // Feed: bytes from the server, between requests as well as during one.
  virtual ExchangeStep Feed(std::string_view in) = 0;
  // FeedEof: the server closed the stream cleanly; kComplete if that ends the response.
  virtual ExchangeStep FeedEof() = 0;
  // Close: the connection's last bytes (HTTP/2's GOAWAY) join Output.
  virtual void Close() {}

  // keep_alive: the connection may carry another request (once a response is complete).
  virtual bool keep_alive() const = 0;
  virtual const std::string& error() const = 0;
};

// MakeExchange: the exchange of the options' protocol (h1 or h2). It may fill the record's
// fields that are its protocol's own (the connection outlives it).
Result<std::unique_ptr<HttpExchange>> MakeExchange(const ConnectionEnv& env,
                                                   ConnectionRecord& record);

}  // namespace pqc
