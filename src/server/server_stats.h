// ServerStats — what the embedded target counted, one set per event-loop thread (no shared
// atomics on the hot path), merged after the threads join. Failures are counted by class
// because a benchmark must tell "the client gave up" from "the handshake failed" from "the
// target was full"; and CPU is recorded next to the handshake count so that a run can state
// the server's CPU cost per handshake. Data only: the CLI decides how to print it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "server/cpu_time.h"

namespace pqc {

// HandshakeFailures: why a TLS handshake did not complete.
struct HandshakeFailures {
  uint64_t timeout = 0;     // not done within the handshake timeout (silent or slow client)
  uint64_t closed = 0;      // the client closed the connection before finishing
  uint64_t reset = 0;       // the connection was reset
  uint64_t peer_alert = 0;  // the client sent an alert (e.g. it does not trust the certificate)
  uint64_t protocol = 0;    // not a TLS 1.3 ClientHello, no common group or cipher suite, ...
  uint64_t other = 0;       // any other socket error

  uint64_t total() const { return timeout + closed + reset + peer_alert + protocol + other; }
  HandshakeFailures& operator+=(const HandshakeFailures& o);
};

// WorkerStats: the share of one event-loop thread, to see whether the kernel spread the
// connections (SO_REUSEPORT hashes the 4-tuple) and what each thread's CPU was.
struct WorkerStats {
  uint64_t accepted = 0;
  uint64_t handshakes = 0;
  uint64_t requests = 0;
  CpuTime cpu;
};

struct ServerStats {
  // Connections.
  uint64_t accepted = 0;
  uint64_t refused = 0;             // over the per-thread connection limit: closed at once
  uint64_t refused_per_source = 0;  // over the per-source limit (--max-per-source): closed
  uint64_t accept_errors = 0;       // accept failed (e.g. out of fds): accepting pauses briefly
  uint64_t open_at_stop = 0;        // still open when the server stopped (closed then)

  // TLS handshakes.
  uint64_t handshakes_full = 0;
  uint64_t handshakes_resumed = 0;   // PSK resumption (SSL_session_reused)
  uint64_t early_data_accepted = 0;  // handshakes whose early data was accepted
  uint64_t early_data_bytes = 0;     // early data read (accepted connections only)
  HandshakeFailures handshake_failures;

  // HTTP requests (every request answered, errors included).
  uint64_t requests = 0;
  uint64_t not_found = 0;            // 404: answered, kept alive; not an error of the target
  uint64_t bad_requests = 0;         // 400, then closed
  uint64_t methods_not_allowed = 0;  // 405, then closed
  uint64_t heads_too_large = 0;      // 431, then closed

  // How established connections ended, other than an orderly close after a response.
  uint64_t closed_by_client = 0;  // between requests: the normal end of keep-alive
  uint64_t idle_timeouts = 0;     // no progress within the idle timeout
  uint64_t truncated = 0;         // the client closed in the middle of a request
  uint64_t resets = 0;
  uint64_t tls_errors = 0;  // alerts, bad records and other failures after the handshake
  // HTTP/2 sessions ended with a GOAWAY for the client's fault: a broken frame, or one of the
  // limits of h2/server_session.h (rapid reset, CONTINUATION, SETTINGS or PING floods).
  uint64_t h2_protocol_errors = 0;

  // Application bytes (HTTP, not TLS records).
  uint64_t bytes_received = 0;
  uint64_t bytes_sent = 0;

  // Time and CPU from Start until the event loops stopped.
  Nanos wall_ns = 0;
  CpuTime process_cpu;  // the whole process (includes anything else running in it)
  CpuTime worker_cpu;   // the event-loop threads only
  std::vector<WorkerStats> workers;

  std::string last_tls_error;  // OpenSSL's text for a recent TLS failure, for diagnosis
  std::string last_h2_error;   // why the last HTTP/2 session that failed did
  std::string loop_error;      // an event loop that failed (never expected), else empty

  uint64_t handshakes() const { return handshakes_full + handshakes_resumed; }
  double handshakes_per_second() const;
  // CpuMicrosPerHandshake: the event-loop threads' CPU (handshakes plus the requests served
  // on them) divided by the handshakes: the server's cost of one more connection. 0 if none.
  double cpu_us_per_handshake() const;
  // ProcessCpuMicrosPerHandshake: the same with the whole process's CPU.
  double process_cpu_us_per_handshake() const;

  // AddCounters: sums every counter of `other` (not time, CPU or workers) into this.
  void AddCounters(const ServerStats& other);
};

// ErrorCounts: every failure class with its stable kebab-case name ("handshake-timeout",
// "bad-request", ...), in a fixed order, zeros included, so that outputs never depend on
// which errors happened.
std::vector<std::pair<std::string_view, uint64_t>> ErrorCounts(const ServerStats& stats);

}  // namespace pqc
