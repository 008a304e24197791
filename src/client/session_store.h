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
  // Take: a session to offer (still owned by the store; SSL_set_session takes its own
  // reference), or nullptr when none is held yet. Round-robin over what is held.
  SSL_SESSION* Take();
  // TakeOnce: a session removed from the store (nullptr when none): a server with
  // anti-replay accepts early data on a ticket once, so an `early` connection never offers
  // one that another connection has used.
  SslSessionPtr TakeOnce();
  size_t size() const { return sessions_.size(); }

 private:
  size_t capacity_;
  std::vector<SslSessionPtr> sessions_;
  size_t next_put_ = 0;
  size_t next_take_ = 0;
};

}  // namespace pqc
