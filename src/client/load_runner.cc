#include "client/load_runner.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "client/fd_limit.h"
#include "client/worker.h"
#include "core/cpu_affinity.h"
#include "core/stop_signals.h"

namespace pqc {
namespace {

// Percentile of an unsorted copy (progress display only; the summary uses stats/).
double QuickPercentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  auto k = static_cast<size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

}  // namespace

Result<LoadResult> RunLoad(const LoadOptions& options, std::FILE* progress) {
  if (Status s = EnsureFileLimit(options); !s) return s.error();
  std::optional<cpu_set_t> cpus;
  if (!options.cpus.empty()) {
    auto set = CpuSetOf(options.cpus, "client_cpus");
    if (!set) return set.error();
    cpus = *set;
  }
  // Blocked before the workers start (they inherit it): only this loop receives a stop.
  StopSignals signals;
  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned i = 0; i < options.threads; ++i) {
    auto w = Worker::Create(options, i, options.threads);
    if (!w) return w.error();
    workers.push_back(std::move(*w));
  }
  LoadResult result;
  result.options = options;
  result.threads = options.threads;
  // A short lead so that every thread is waiting before the first intended start; with a
  // start barrier, the barrier (translated from the wall clock once, here), unless it has
  // passed: then at once, and the lateness is recorded.
  const Nanos lead = MonotonicNow() + 20'000'000;
  Nanos start = lead;
  if (options.start_at_unix_ns > 0) {
    start = MonotonicNow() + (options.start_at_unix_ns - UnixNowNs());
    if (start < lead) {
      result.start_late = lead - start;
      start = lead;
    }
  }
  result.run_start = start;
  result.measure_start = start + options.warmup;

  std::vector<std::thread> threads;
  std::atomic<unsigned> running{options.threads};
  Status pinned;
  for (auto& w : workers) {
    threads.emplace_back([&w, start, &running] {
      w->Run(start);
      running.fetch_sub(1, std::memory_order_acq_rel);
    });
    // Placed before its first connection: Run waits for `start`, 20 ms ahead.
    if (cpus && pinned) pinned = PinThread(threads.back(), *cpus);
  }
  if (!pinned) {
    for (auto& w : workers) w->RequestStop();
    for (auto& t : threads) t.join();
    return pinned.error();
  }

  std::vector<double> handshakes;
  const Nanos total = options.warmup + options.duration;
  Nanos next_line = start + 1'000'000'000;
  while (running.load(std::memory_order_acquire) > 0) {
    // Once aborted the descriptor stays readable: it is watched no more.
    const int sig =
        signals.WaitUntil(MonotonicNow() + 100'000'000, result.aborted ? -1 : options.abort_fd);
    if (sig > 0 && !result.interrupted) {
      result.interrupted = true;
      for (auto& w : workers) w->RequestStop();
      if (progress) fmt::print(progress, "\ninterrupted: draining in-flight connections\n");
    }
    if (sig == StopSignals::kWatchReady && !result.aborted) {
      result.aborted = true;
      for (auto& w : workers) w->RequestStop();
      if (progress) fmt::print(progress, "\nthe target's server ended: draining\n");
    }
    if (progress && MonotonicNow() >= next_line) {
      next_line += 1'000'000'000;
      uint64_t started = 0, errors = 0, inflight = 0;
      for (auto& w : workers) {
        WorkerProgress p = w->TakeProgress();
        started += p.started;
        errors += p.errors;
        inflight += p.inflight;
        handshakes.insert(handshakes.end(), p.new_handshakes_us.begin(), p.new_handshakes_us.end());
      }
      const double elapsed = static_cast<double>(MonotonicNow() - start) / 1e9;
      fmt::print(progress,
                 "\r[{:6.1f}s / {:.1f}s] {:8.1f} conn/s  in flight {:5}  errors {:5}  "
                 "handshake p50 {:8.1f} us  p99 {:8.1f} us ",
                 elapsed, static_cast<double>(total) / 1e9,
                 elapsed > 0 ? static_cast<double>(started) / elapsed : 0.0, inflight, errors,
                 QuickPercentile(handshakes, 0.50), QuickPercentile(handshakes, 0.99));
      std::fflush(progress);
    }
  }
  for (auto& t : threads) t.join();
  result.cpu_wall_s =
      std::max(0.0, static_cast<double>(MonotonicNow() - result.measure_start) / 1e9);
  if (progress) fmt::print(progress, "\n");

  for (auto& w : workers) {
    const uint32_t base = static_cast<uint32_t>(result.requests.size());
    for (ConnectionRecord& r : w->records()) {
      r.first_request += base;
      result.connections.push_back(std::move(r));
    }
    result.requests.insert(result.requests.end(), w->requests().begin(), w->requests().end());
    result.cpu_user_s += w->cpu_user_s();
    result.cpu_sys_s += w->cpu_sys_s();
    result.skipped += w->skipped();
    result.unfinished += w->unfinished();
  }
  // Records in intended-start order, as the schedule laid them out across threads.
  std::vector<size_t> order(result.connections.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return result.connections[a].intended_start < result.connections[b].intended_start;
  });
  std::vector<ConnectionRecord> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) sorted.push_back(std::move(result.connections[i]));
  result.connections = std::move(sorted);
  result.measure_end = result.measure_start + options.duration;
  result.measured_wall_s = static_cast<double>(options.duration) / 1e9;
  if (result.interrupted || result.aborted) {
    // Only the part of the window that actually ran counts towards the achieved rate.
    Nanos last = result.measure_start;
    for (const ConnectionRecord& r : result.connections) last = std::max(last, r.intended_start);
    result.measure_end = last;
    result.measured_wall_s = std::max(1e-9, static_cast<double>(last - result.measure_start) / 1e9);
  }
  return result;
}

}  // namespace pqc
