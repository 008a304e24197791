// worker — one load thread: its own EventLoop, TLS context, session store, schedule and
// records (wrk's model). Nothing is shared with other workers on the hot path; the runner
// merges the records after the threads join. The only cross-thread traffic is a stop request
// and a once-a-second progress snapshot.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "client/connection.h"
#include "records/load_options.h"
#include "client/schedule.h"
#include "client/session_store.h"
#include "core/error.h"
#include "net/event_loop.h"

namespace pqc {

struct WorkerProgress {
  uint64_t started = 0;
  uint64_t completed = 0;
  uint64_t errors = 0;
  uint64_t inflight = 0;
  std::vector<double> new_handshakes_us;  // handshake times since the last snapshot
};

class Worker {
 public:
  static Result<std::unique_ptr<Worker>> Create(const LoadOptions& options, unsigned index,
                                                unsigned threads);
  ~Worker();

  // Run: the thread body. Schedules arrivals from `start`, then drains; returns when done.
  void Run(Nanos start);
  // RequestStop: thread-safe. Stops scheduling (Ctrl-C); in-flight connections drain.
  void RequestStop();
  // TakeProgress: thread-safe; moves out the handshake times gathered since the last call.
  WorkerProgress TakeProgress();

  // After Run returned:
  std::vector<ConnectionRecord>& records() { return records_; }
  std::vector<RequestRecord>& requests() { return requests_; }
  double cpu_user_s() const { return cpu_user_s_; }
  double cpu_sys_s() const { return cpu_sys_s_; }
  uint64_t skipped() const { return skipped_; }
  uint64_t unfinished() const { return unfinished_; }

 private:
  Worker(const LoadOptions& options, unsigned index, unsigned threads,
         std::unique_ptr<EventLoop> loop, SslCtxPtr ctx);
  void ScheduleNext();
  // ClosedLoopShare: this thread's part of options.closed_loop.
  uint32_t ClosedLoopShare() const;
  // Refill: closed loop — start one connection per finished one, or end the scheduling.
  void Refill(size_t finished);
  void StartConnection(const Arrival& arrival);
  void Sweep();
  void Collect();
  void Publish();
  void MarkMeasureStart();
  void MarkMeasureEnd();

  const LoadOptions& options_;
  unsigned index_;
  unsigned threads_;
  std::unique_ptr<EventLoop> loop_;
  SslCtxPtr ctx_;
  SessionStore sessions_;
  ConnectionEnv env_;
  std::optional<Schedule> schedule_;

  std::vector<std::unique_ptr<Connection>> live_;
  std::vector<ConnectionRecord> records_;
  std::vector<RequestRecord> requests_;
  uint64_t next_id_ = 0;
  bool scheduling_done_ = false;
  Nanos drain_deadline_ = 0;
  TimerId schedule_timer_ = 0;

  Nanos measure_start_ = 0;
  bool measure_started_ = false;
  double cpu_user_s_ = 0, cpu_sys_s_ = 0;
  double cpu_user_mark_ = 0, cpu_sys_mark_ = 0;
  uint64_t skipped_ = 0;
  uint64_t unfinished_ = 0;

  std::atomic<bool> stop_requested_{false};
  std::mutex progress_mu_;
  WorkerProgress progress_;  // guarded by progress_mu_
  std::vector<double> pending_handshakes_us_;
  uint64_t started_ = 0, completed_ = 0, errors_ = 0;
};

}  // namespace pqc
