// load_options — one arm of load: the target, the client's TLS settings, the open-loop
// schedule and what the result must have negotiated to be valid.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/protocol.h"
#include "core/shard.h"
#include "net/address.h"
#include "records/record.h"
#include "tls/context.h"

namespace pqc {

enum class Arrivals : uint8_t { kUniform, kPoisson };

struct MixWeight {
  ConnMode mode;
  double weight;  // relative
};

struct LoadOptions {
  SocketAddress target;
  std::string server_name = "localhost";  // SNI
  std::string mode_text = "fresh";        // as given: fresh|reuse|resume|mix
  std::vector<MixWeight> mix;             // one entry unless mode is mix
  double rate = 100;                      // new connections per second (all threads)
  // closed_loop > 0: a closed loop instead of the open-loop schedule — this many connections
  // in flight at all times (over all threads), each finished one replaced at once, `rate`
  // unused. For capacity: the server's pace sets the rate. Its latencies include queueing
  // behind the other connections, so they are not the open-loop latencies.
  uint32_t closed_loop = 0;
  Arrivals arrivals = Arrivals::kUniform;
  // busy_poll: the threads poll their sockets instead of sleeping (EventLoop::SetBusyPoll), so
  // no connect time or start lag carries a thread wake-up. Each thread then uses a whole CPU,
  // so its CPU share is no saturation signal and its CPU time no cost per connection.
  bool busy_poll = false;
  // cpus: the CPUs the load threads may run on (the client_cpus setting); empty = the tool's own.
  std::vector<unsigned> cpus;
  Nanos duration = 10'000'000'000;  // measured phase
  Nanos warmup = 1'000'000'000;     // discarded (and tickets collected for resume)
  uint32_t requests = 1;            // per connection
  Nanos request_interval = 0;       // keep-alive think time between requests (reuse)
  // streams: HTTP/2 requests in flight at once on a connection (each on a stream of its own,
  // a finished one's place taken by the next request at once); 1 for h1 and h3.
  uint32_t streams = 1;
  std::string path = "/";
  // protocol: h1 or h2 over TLS over TCP, or h3 over QUIC (no TCP connect, the handshake from
  // the first Initial sent: docs/methodology.md, "Phases over QUIC"). It sets tls.transport and
  // tls.alpn (core/protocol.h), whatever they hold.
  Protocol protocol = Protocol::kH1;
  ClientTlsConfig tls;
  unsigned threads = 1;
  uint32_t max_inflight = 10'000;  // per run; beyond it an arrival is recorded as skipped
  Nanos timeout = 10'000'000'000;  // per connection, no progress
  uint64_t seed = 1;               // Poisson gaps and mix choices
  // Shards: this process is load host `shard.index` of `shard.count`. `rate` and
  // `closed_loop` stay the whole arm's: every shard's threads are lanes of one schedule
  // (Schedule), so the shards' arrivals together are the single-host schedule.
  ShardSpec shard;
  // start_at_unix_ns > 0: the schedule starts at this wall-clock instant (a start barrier
  // shared by the shards) instead of at once. A start later than `max_start_late` past it
  // (the process came late) invalidates the trial: the shards did not measure together.
  int64_t start_at_unix_ns = 0;
  Nanos max_start_late = 10'000'000;
  // abort_fd >= 0: the load stops early (draining what is in flight, keeping every record) as
  // soon as this descriptor is readable — the pidfd of the server it loads, whose death makes
  // the rest of the schedule a measurement of nothing.
  int abort_fd = -1;
  // gate: `pqc-bench count`'s fixed windows (cli/count_client.cc) — called on the worker thread
  // before each connection of a closed loop starts, with the number started so far; false ends
  // the schedule. It may block: the counter opens its window between two connections. With a
  // gate the worker publishes no progress and sweeps timeouts once a second, so that a process
  // slowed down 50 × by valgrind is not counted waking up for its timers.
  std::function<bool(uint64_t started)> gate;

  // Verification: what every measured connection must have negotiated. Empty = not checked.
  std::string expect_group;
  std::string expect_sigalg;
  // early_rejection_expected: an `early` arm that measures a server refusing early data (its
  // rejection, or tickets that allow none, is then the expectation, and acceptance invalid).
  bool early_rejection_expected = false;
  double max_error_rate = 0.01;
  // Saturation: lag p99 limit and CPU share of the client's threads. 20 ms: a generator that
  // falls behind its schedule is late by hundreds of ms within a second, while a shared
  // machine's pauses delay 1 % of starts by 1-11 ms (docs/methodology.md, "Trials called
  // saturated on a shared machine"); those pauses are in the total phase, timed from each
  // connection's intended start.
  Nanos max_lag_p99 = 20'000'000;
  double max_cpu_share = 0.90;
};

}  // namespace pqc
