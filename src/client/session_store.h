// session_store — the TLS 1.3 sessions (tickets) a load thread can offer for resumption.
// Filled by every completed connection (warm-up first), so that a `resume` arm measures
// real PSK resumption on a new TCP connection — what the original called "resumed" was
// keep-alive reuse. One store per thread: no locks.
#pragma once

#include <cstddef>
#include <vector>

#include "tls/ossl_ptr.h"

namespace pqc {

class SessionStore {
 public:
  explicit SessionStore(size_t capacity = 64) : capacity_(capacity) {}

  // Put: keeps a resumable session (takes ownership); the oldest is replaced when full.
  void Put(SslSessionPtr session);
  // TakeOnce: a session removed from the store, the newest (nullptr when none): a ticket is
  // offered by one connection only, as RFC 8446 (C.4) asks of clients and as a server with
  // anti-replay (any that allows early data) insists.
  SslSessionPtr TakeOnce();
  size_t size() const { return sessions_.size(); }

 private:
  size_t capacity_;
  std::vector<SslSessionPtr> sessions_;
  size_t next_put_ = 0;
};

}  // namespace pqc
