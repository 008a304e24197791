#include "client/session_store.h"

namespace pqc {

void SessionStore::Put(SslSessionPtr session) {
  if (!session || SSL_SESSION_is_resumable(session.get()) != 1) return;
  if (sessions_.size() < capacity_) {
    sessions_.push_back(std::move(session));
    return;
  }
  sessions_[next_put_] = std::move(session);
  next_put_ = (next_put_ + 1) % capacity_;
}

SslSessionPtr SessionStore::TakeOnce() {
  if (sessions_.empty()) return nullptr;
  // The newest: its ticket is the freshest, and the vector shrinks from its end.
  SslSessionPtr s = std::move(sessions_.back());
  sessions_.pop_back();
  next_put_ = 0;
  return s;
}

}  // namespace pqc
