#include "server/source_limiter.h"

namespace pqc::server {

std::optional<SourceLimiter::Hold> SourceLimiter::Acquire(const SocketAddress& peer) {
  std::string source = SourceOf(peer);
  std::lock_guard lock(mu_);
  size_t& n = open_[source];
  if (n >= max_) return std::nullopt;
  ++n;
  return Hold(this, std::move(source));
}

void SourceLimiter::Release(const std::string& source) {
  std::lock_guard lock(mu_);
  auto it = open_.find(source);
  if (it == open_.end()) return;
  if (--it->second == 0) open_.erase(it);
}

}  // namespace pqc::server
