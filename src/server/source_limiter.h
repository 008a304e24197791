// source_limiter — how many connections one source may hold open on a server at once, across
// its threads (`serve --max-per-source`): without it one address can take every slot of
// --max-connections from everyone else. A source is an IPv4 address or an IPv6 /64
// (net/address.h, SourceOf). Off (no limiter at all, nothing on the accept path) unless set:
// a benchmark's load host is one source with thousands of connections.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "net/address.h"

namespace pqc::server {

class SourceLimiter {
 public:
  explicit SourceLimiter(size_t max_per_source) : max_(max_per_source) {}

  // Hold: one open connection counted against its source until destroyed.
  class Hold {
   public:
    Hold(SourceLimiter* owner, std::string source) : owner_(owner), source_(std::move(source)) {}
    Hold(Hold&& o) noexcept
        : owner_(std::exchange(o.owner_, nullptr)), source_(std::move(o.source_)) {}
    Hold& operator=(Hold&& o) noexcept {
      if (this != &o) {
        if (owner_ != nullptr) owner_->Release(source_);
        owner_ = std::exchange(o.owner_, nullptr);
        source_ = std::move(o.source_);
      }
      return *this;
    }
    Hold(const Hold&) = delete;
    ~Hold() {
      if (owner_ != nullptr) owner_->Release(source_);
    }

   private:
    SourceLimiter* owner_;
    std::string source_;
  };

  // Acquire: a hold for a new connection from `peer`, or nullopt when its source holds
  // max_per_source already (the connection is then closed at once).
  std::optional<Hold> Acquire(const SocketAddress& peer);
  size_t max_per_source() const { return max_; }

 private:
  void Release(const std::string& source);
  const size_t max_;
  std::mutex mu_;
  std::unordered_map<std::string, size_t> open_;  // source → connections open (none: absent)
};

}  // namespace pqc::server
