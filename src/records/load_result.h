// load_result — everything one run of load produced, before any statistics: the raw records
// (merged from every thread after they joined) and the load generator's own accounting.
#pragma once

#include <cstdint>
#include <vector>

#include "records/load_options.h"
#include "records/record.h"

namespace pqc {

struct LoadResult {
  LoadOptions options;
  std::vector<ConnectionRecord> connections;  // warm-up ones have measured = false
  std::vector<RequestRecord> requests;        // ConnectionRecord::first_request indexes here

  Nanos run_start = 0;      // first intended start (warm-up included)
  Nanos measure_start = 0;  // warm-up end
  Nanos measure_end = 0;    // last intended start of the measured phase + drain
  // With a start barrier (LoadOptions::start_at_unix_ns): how much later than the barrier
  // the schedule began (0 when on time), and the barrier as CLOCK_MONOTONIC.
  Nanos start_late = 0;
  uint64_t skipped = 0;     // arrivals not started because max_inflight was reached
  uint64_t unfinished = 0;  // connections still open when the drain timed out (recorded as timeout)

  // CPU of the load generator's threads during the measured phase (RUSAGE_THREAD sums).
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
  double measured_wall_s = 0;  // the arrival window (duration, or less if interrupted)
  double cpu_wall_s = 0;       // measured phase start until the last thread finished draining
  unsigned threads = 1;
  bool interrupted = false;  // stopped by SIGINT/SIGTERM before the schedule ended
  bool aborted = false;      // stopped early because LoadOptions::abort_fd became readable
};

}  // namespace pqc
