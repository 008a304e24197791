// summary — what one load run measured, reduced to the numbers every report shows, and
// whether the run may be believed (docs/design.md, "Truths a run checks on itself"). Everything
// here is computed from a LoadResult by pure functions; printing lives in summary_output.h,
// so the terminal table, JSON and the results store show the same numbers.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "records/load_result.h"
#include "records/record.h"
#include "stats/percentiles.h"

namespace pqc {

// Phase — the phases of a connection (docs/design.md, "Names"), in report order.
enum class Phase : uint8_t { kConnect, kHandshake, kTtfb, kResponse, kTotal };
inline constexpr std::array<Phase, 5> kAllPhases = {Phase::kConnect, Phase::kHandshake,
                                                    Phase::kTtfb, Phase::kResponse, Phase::kTotal};
// PhaseName: "connect", "handshake", "ttfb", "response", "total" (JSON keys, table rows).
std::string_view PhaseName(Phase phase);

// Per-connection phase definitions, in µs — one place, shared by the summary and the samples
// CSV so that both agree. Each is nullopt when a timestamp it needs is 0 (did not happen):
// a failed phase is counted as an error, never as a latency.
std::optional<double> ConnectMicros(const ConnectionRecord& c);  // tcp_established − actual_start
std::optional<double> HandshakeMicros(const ConnectionRecord& c);  // tls_done − tcp_established
std::optional<double> LagMicros(const ConnectionRecord& c);    // actual_start − intended_start
std::optional<double> TtfbMicros(const RequestRecord& r);      // first_byte − sent
std::optional<double> ResponseMicros(const RequestRecord& r);  // last_byte − sent
// TotalMicros: intended start → last byte of the last request; only for a connection that
// succeeded (ok(), at least one request), since open-loop latency counts the wait for a slot.
std::optional<double> TotalMicros(const ConnectionRecord& c,
                                  std::span<const RequestRecord> requests);

// RequestsOf: the connection's requests within `all` (clamped to its bounds, so a record
// that points past the end yields fewer requests rather than a read out of range).
std::span<const RequestRecord> RequestsOf(const ConnectionRecord& c,
                                          const std::vector<RequestRecord>& all);

// PhaseSamples / MeasuredPhaseSamples: every measured connection's phase values in µs,
// indexed by Phase (ttfb and response per request, the others per connection), in record
// order. The raw material of both a trial's summary and the pooled statistics of a study.
using PhaseSamples = std::array<std::vector<double>, kAllPhases.size()>;
PhaseSamples MeasuredPhaseSamples(const LoadResult& result);
// AddPhaseSamples: one measured connection's phase values (and its requests', within `all`)
// appended to `out`: the step MeasuredPhaseSamples takes per connection, for callers that
// split connections (by client site, say).
void AddPhaseSamples(const ConnectionRecord& c, const std::vector<RequestRecord>& all,
                     PhaseSamples& out);

// ArmInfo — the arm's settings as reports name them, copied out of LoadOptions so that
// outputs need neither sockets nor OpenSSL types.
struct ArmInfo {
  std::string target;  // "127.0.0.1:8443"
  std::string server_name;
  std::string mode;                                 // as given: fresh|reuse|resume|mix
  std::vector<std::pair<std::string, double>> mix;  // mode → relative weight
  double rate = 0;                                  // connections per second
  std::string arrivals;                             // "uniform" | "poisson"
  bool busy_poll = false;
  double duration_s = 0;
  double warmup_s = 0;
  uint32_t requests = 0;
  double request_interval_s = 0;  // keep-alive think time between requests
  uint32_t streams = 1;           // HTTP/2 requests in flight at once (files before it: 1)
  std::string path;
  Protocol protocol = Protocol::kH1;
  std::vector<std::string> groups;
  std::vector<std::string> key_shares;
  std::vector<std::string> sigalgs;  // the OpenSSL list split at ':'; empty = default
  unsigned threads = 0;
  double timeout_s = 0;
};

// NegotiatedCounts — what measured connections that completed a handshake agreed on.
struct NegotiatedCounts {
  uint64_t handshakes = 0;                  // measured connections with tls_done
  std::map<std::string, uint64_t> groups;   // canonical group name → connections
  std::map<std::string, uint64_t> sigalgs;  // SignatureScheme name; resumed ones have none
  std::map<std::string, uint64_t> ciphers;
  uint64_t resumed = 0;
  uint64_t hrr = 0;
  uint64_t resume_without_session = 0;  // resume/early connections with no session to offer
  // Early data (`early` connections that offered it): accepted, or rejected and sent again.
  uint64_t early_accepted = 0, early_rejected = 0;
};

// MessageBytes — a handshake message's mean size over the connections that had it (a
// resumed handshake has no Certificate), with how many that was.
struct MessageBytes {
  uint64_t count = 0;
  double mean = PhaseStats::kUndefined;
};

struct ByteStats {
  // TLS bytes on the socket during the handshake, over measured connections with tls_done.
  uint64_t handshake_written_total = 0;
  double handshake_written_mean = PhaseStats::kUndefined;
  uint64_t handshake_read_total = 0;
  double handshake_read_mean = PhaseStats::kUndefined;
  MessageBytes client_hello;
  MessageBytes server_hello;
  MessageBytes certificate;
  MessageBytes certificate_verify;
  uint64_t response_body_total = 0;  // body bytes of every measured request
};

// HandshakeBytesTally — the byte counts of completed handshakes, summed so that a trial's
// summary and a study's arm pooled over trials compute their means the one same way.
class HandshakeBytesTally {
 public:
  void Add(const ConnectionRecord& c);         // a connection whose handshake completed
  void Add(const HandshakeBytesTally& other);  // another tally's handshakes (several runs)
  uint64_t handshakes() const { return handshakes_; }
  // Bytes: the totals and means (response_body_total is not the tally's: 0).
  ByteStats Bytes() const;
  // SegmentsMean: TCP data segments read until the handshake completed, over the handshakes
  // where the kernel said (NaN when none did).
  double SegmentsMean() const;

 private:
  uint64_t handshakes_ = 0, written_ = 0, read_ = 0, segments_n_ = 0, segments_ = 0;
  std::array<uint64_t, 4> count_{}, sum_{};  // ClientHello, ServerHello, Certificate, CV
};

// LoadgenHealth — the load generator's own accounting: whether it kept its schedule, which
// is what separates "the server is slow" from "the client could not keep up".
struct LoadgenHealth {
  double rate_target = 0;                         // options.rate
  double rate_achieved = PhaseStats::kUndefined;  // measured connections / measured wall s
  double lag_p50_us = PhaseStats::kUndefined;
  double lag_p99_us = PhaseStats::kUndefined;
  double lag_max_us = PhaseStats::kUndefined;
  double lag_limit_us = 0;  // options.max_lag_p99
  double wall_s = 0;        // measured phase
  unsigned threads = 0;
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
  double cpu_us_per_connection = PhaseStats::kUndefined;
  double cpu_share = PhaseStats::kUndefined;  // (user + sys) / (wall × threads)
  double cpu_share_limit = 0;                 // options.max_cpu_share
  bool saturated_by_lag = false;
  bool saturated_by_cpu = false;
  bool saturated = false;
  uint64_t skipped = 0;
  uint64_t unfinished = 0;
};

// QuicCounts — over QUIC (protocol h3), the measured connections whose handshake completed:
// how many Initial datagrams the client's first flight took (a count → connections), the mean
// datagrams each way until the handshake completed, and how many servers' flights outgrew
// three times the client's first flight (held back by the anti-amplification limit: a round
// trip more, RFC 9000 §8.1), and how many were first asked to validate their address (a Retry:
// a round trip more, §8.1.2). Empty over TCP.
struct QuicCounts {
  uint64_t handshakes = 0;
  std::map<std::string, uint64_t> initial_datagrams;
  double datagrams_sent_mean = PhaseStats::kUndefined;
  double datagrams_received_mean = PhaseStats::kUndefined;
  uint64_t amplification_limited = 0;
  uint64_t retried = 0;
};

// LoadSummary — one arm's run, measured connections only (warm-up never leaks in).
struct LoadSummary {
  ArmInfo arm;
  uint64_t connections = 0;                         // measured
  uint64_t errors = 0;                              // measured connections that failed
  std::map<std::string, uint64_t> errors_by_class;  // ErrorClassName → connections
  double error_rate = PhaseStats::kUndefined;       // errors / connections
  NegotiatedCounts negotiated;
  std::array<PhaseStats, kAllPhases.size()> phases;  // indexed by Phase
  ByteStats bytes;
  QuicCounts quic;
  LoadgenHealth loadgen;
  // invalid_reasons: each failed self-check, saying what and how many; empty = valid.
  std::vector<std::string> invalid_reasons;

  bool valid() const { return invalid_reasons.empty(); }
  const PhaseStats& phase(Phase p) const { return phases[static_cast<size_t>(p)]; }
};

// Summarize: statistics and validity checks of one run. Pure; any LoadResult is accepted,
// including an empty one (which is invalid: no measured connections).
LoadSummary Summarize(const LoadResult& result);

}  // namespace pqc
