// Worker — one event-loop thread of the embedded target, wrk-style: its own epoll loop, its
// own SO_REUSEPORT listener, its own connection table and counters, so that nothing on the
// hot path is shared with the other threads (the SSL_CTX aside, which OpenSSL locks). It owns
// the lifetime, interest and timer of each Connection; the Connection owns the protocol.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/fd.h"
#include "net/event_loop.h"
#include "server/connection.h"
#include "server/server_stats.h"
#include "server/source_limiter.h"

namespace pqc::server {

struct WorkerSettings {
  Nanos handshake_timeout = 0;
  Nanos idle_timeout = 0;
  size_t max_connections = 0;
  ClientRecordSink* clients = nullptr;  // the observatory's sink, or none
  Nanos handshake_cpu = 0;              // ServerOptions::handshake_cpu
  SourceLimiter* per_source = nullptr;  // shared by the threads; none: no per-source limit
};

class Worker {
 public:
  // Create: the loop and the listener's registration; ctx and payload must outlive the Worker.
  static Result<std::unique_ptr<Worker>> Create(ScopedFd listener, SSL_CTX* ctx,
                                                std::span<const char> payload,
                                                const WorkerSettings& settings);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker();

  // Run: the thread body; serves until Stop(), then closes every connection. Records the
  // thread's CPU time and when it stopped.
  void Run();
  // Stop: thread-safe; a Stop before Run makes Run return at once.
  void Stop() { loop_->Stop(); }

  // open_connections: thread-safe; the connections this thread holds now (`count` opens and
  // closes its window only when the server has closed every connection).
  size_t open_connections() const { return open_.load(std::memory_order_acquire); }

  // After Run returned:
  const ServerStats& stats() const { return stats_; }
  const WorkerStats& summary() const { return summary_; }
  Nanos stopped_at() const { return stopped_at_; }

 private:
  // Slot: a connection and its timers; its address is stable (map node) and is what the
  // loop's handler and timers capture.
  struct Slot {
    std::unique_ptr<Connection> conn;
    std::optional<SourceLimiter::Hold> source;  // counted against its source while open
    TimerId deadline_timer = 0;
    Nanos armed_for = 0;  // the deadline deadline_timer fires at
    TimerId resume_timer = 0;
  };

  Worker(std::unique_ptr<EventLoop> loop, ScopedFd listener, SSL_CTX* ctx,
         std::span<const char> payload, const WorkerSettings& settings);
  void OnAcceptable();
  void PauseAccepting();
  void Admit(ScopedFd fd, const SocketAddress& peer);
  void Drive(Slot* slot);
  void ArmDeadline(Slot* slot);
  void OnDeadline(Slot* slot);
  void Close(Slot* slot);

  std::unique_ptr<EventLoop> loop_;
  ScopedFd listener_;
  SSL_CTX* ctx_;
  WorkerSettings settings_;
  std::vector<char> scratch_;
  ServerStats stats_;
  ConnectionEnv env_;
  std::unordered_map<int, Slot> slots_;  // by fd; destroyed before the loop
  std::atomic<size_t> open_{0};          // slots_.size(), for other threads
  WorkerStats summary_;
  Nanos stopped_at_ = 0;
};

}  // namespace pqc::server
