// client_observer — one connection's record for the observatory (`serve --clients`): the
// capture of its ClientHello (tls/hello_capture.h), what the handshake negotiated, and the
// first request's User-Agent, handed to the sink once — when that request arrives, or when
// the connection ends without one.
#pragma once

#include <openssl/ssl.h>

#include <string>
#include <string_view>

#include "tls/client_record.h"
#include "tls/hello_capture.h"

namespace pqc::server {

class ClientObserver {
 public:
  // Attaches the capture to ssl (which must outlive the observer's capture use: the
  // Connection frees ssl after its observer has finished).
  ClientObserver(SSL* ssl, int fd, ClientRecordSink* sink);
  ClientObserver(const ClientObserver&) = delete;
  ClientObserver& operator=(const ClientObserver&) = delete;
  ~ClientObserver() { Finish(); }

  void HandshakeDone(SSL* ssl);
  void HandshakeFailed(std::string reason);
  // FirstRequest: the record is complete; it goes to the sink now.
  void FirstRequest(std::string_view user_agent);

 private:
  void Finish();

  ClientRecordSink* sink_;
  HelloCapture capture_;
  ClientRecord record_;
  bool done_ = false;
};

}  // namespace pqc::server
