#include "server/server_stats.h"

namespace pqc {
namespace {

double PerHandshake(Nanos cpu_ns, uint64_t handshakes) {
  if (handshakes == 0) return 0;
  return NanosToMicros(cpu_ns) / static_cast<double>(handshakes);
}

}  // namespace

HandshakeFailures& HandshakeFailures::operator+=(const HandshakeFailures& o) {
  timeout += o.timeout;
  closed += o.closed;
  reset += o.reset;
  peer_alert += o.peer_alert;
  protocol += o.protocol;
  other += o.other;
  return *this;
}

double ServerStats::handshakes_per_second() const {
  if (wall_ns <= 0) return 0;
  return static_cast<double>(handshakes()) * 1e9 / static_cast<double>(wall_ns);
}

double ServerStats::cpu_us_per_handshake() const {
  return PerHandshake(worker_cpu.total_ns(), handshakes());
}

double ServerStats::process_cpu_us_per_handshake() const {
  return PerHandshake(process_cpu.total_ns(), handshakes());
}

void ServerStats::AddCounters(const ServerStats& o) {
  accepted += o.accepted;
  refused += o.refused;
  refused_per_source += o.refused_per_source;
  accept_errors += o.accept_errors;
  open_at_stop += o.open_at_stop;
  handshakes_full += o.handshakes_full;
  handshakes_resumed += o.handshakes_resumed;
  early_data_accepted += o.early_data_accepted;
  early_data_bytes += o.early_data_bytes;
  handshake_failures += o.handshake_failures;
  requests += o.requests;
  not_found += o.not_found;
  bad_requests += o.bad_requests;
  methods_not_allowed += o.methods_not_allowed;
  heads_too_large += o.heads_too_large;
  closed_by_client += o.closed_by_client;
  idle_timeouts += o.idle_timeouts;
  truncated += o.truncated;
  resets += o.resets;
  tls_errors += o.tls_errors;
  h2_protocol_errors += o.h2_protocol_errors;
  bytes_received += o.bytes_received;
  bytes_sent += o.bytes_sent;
  if (!o.last_tls_error.empty()) last_tls_error = o.last_tls_error;
  if (!o.last_h2_error.empty()) last_h2_error = o.last_h2_error;
  if (!o.loop_error.empty()) loop_error = o.loop_error;
}

std::vector<std::pair<std::string_view, uint64_t>> ErrorCounts(const ServerStats& s) {
  const HandshakeFailures& h = s.handshake_failures;
  return {
      {"handshake-timeout", h.timeout},
      {"handshake-closed", h.closed},
      {"handshake-reset", h.reset},
      {"handshake-alert", h.peer_alert},
      {"handshake-protocol", h.protocol},
      {"handshake-other", h.other},
      {"refused", s.refused},
      {"refused-per-source", s.refused_per_source},
      {"accept-error", s.accept_errors},
      {"bad-request", s.bad_requests},
      {"method-not-allowed", s.methods_not_allowed},
      {"header-too-large", s.heads_too_large},
      {"idle-timeout", s.idle_timeouts},
      {"truncated", s.truncated},
      {"reset", s.resets},
      {"tls-error", s.tls_errors},
      {"h2-protocol-error", s.h2_protocol_errors},
  };
}

}  // namespace pqc
