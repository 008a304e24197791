// http_exchange — the HTTP half of a connection over TLS over TCP: what to write for each
// request and what the bytes read mean, apart from the TLS stream (tcp_connection.h) that
// carries them, so that HTTP/1.1 and HTTP/2 share the connect, the handshake, early data, the
// session store and every timestamp. One per connection; bytes in, bytes out, no I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"
#include "records/record.h"

namespace pqc {

struct ConnectionEnv;

struct ExchangeStep {
  enum Status { kNeedMore, kComplete, kError } status = kNeedMore;
  // response_began: the bytes fed began the current response (its first byte: HTTP/1.1's status
  // line, HTTP/2's HEADERS — not the connection's own frames before them).
  bool response_began = false;
};

class HttpExchange {
 public:
  HttpExchange() = default;
  HttpExchange(const HttpExchange&) = delete;
  HttpExchange& operator=(const HttpExchange&) = delete;
  virtual ~HttpExchange() = default;

  // BeginRequest: the next request, `last` when the connection carries no more after it.
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
  virtual ExchangeStep::Status FeedEof() = 0;
  // Close: the connection's last bytes (HTTP/2's GOAWAY) join Output.
  virtual void Close() {}

  virtual uint32_t status() const = 0;
  virtual uint64_t body_bytes() const = 0;
  // keep_alive: the connection may carry another request (once a response is complete).
  virtual bool keep_alive() const = 0;
  virtual const std::string& error() const = 0;
};

// MakeExchange: the exchange of the options' protocol (h1 or h2). It may fill the record's
// fields that are its protocol's own (the connection outlives it).
Result<std::unique_ptr<HttpExchange>> MakeExchange(const ConnectionEnv& env,
                                                   ConnectionRecord& record);

}  // namespace pqc
