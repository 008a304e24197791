#include "client/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "core/split.h"
#include "tls/algorithms.h"

namespace pqc {
namespace {

// Interval: b − a in µs when both happened.
std::optional<double> Interval(Nanos a, Nanos b) {
  if (a == 0 || b == 0) return std::nullopt;
  return NanosToMicros(b - a);
}

double Seconds(Nanos ns) {
  return static_cast<double>(ns) / 1e9;
}

double Ratio(double numerator, double denominator) {
  return denominator > 0 ? numerator / denominator : PhaseStats::kUndefined;
}

ArmInfo ArmOf(const LoadOptions& o) {
  ArmInfo arm;
  arm.target = o.target.len > 0 ? o.target.ToString() : "";
  arm.server_name = o.server_name;
  arm.mode = o.mode_text;
  for (const MixWeight& w : o.mix)
    arm.mix.emplace_back(std::string(ConnModeName(w.mode)), w.weight);
  arm.rate = o.rate;
  arm.arrivals = o.arrivals == Arrivals::kPoisson ? "poisson" : "uniform";
  arm.busy_poll = o.busy_poll;
  arm.duration_s = Seconds(o.duration);
  arm.warmup_s = Seconds(o.warmup);
  arm.requests = o.requests;
  arm.request_interval_s = Seconds(o.request_interval);
  arm.path = o.path;
  arm.protocol = std::string(ProtocolName(o.protocol));
  arm.groups = o.tls.groups;
  arm.key_shares = o.tls.key_shares;
  for (std::string_view a : Split(o.tls.sigalgs, ":")) {
    if (!a.empty()) arm.sigalgs.emplace_back(a);
  }
  arm.threads = o.threads;
  arm.timeout_s = Seconds(o.timeout);
  return arm;
}

// ExpectedSigalg: the arm may name the certificate type ("ml-dsa-65") or the TLS scheme
// ("mldsa65"); records carry the scheme, so compare against that.
std::string ExpectedSigalg(const std::string& expect) {
  auto info = FindSignature(expect);
  if (info.ok() && !(*info)->tls_sigalg.empty()) return std::string((*info)->tls_sigalg);
  return expect;
}

// Mismatches: one reason per unexpected value, "N of M connections negotiated <what> V
// instead of E".
void Mismatches(const std::map<std::string, uint64_t>& counts, const std::string& expected,
                std::string_view what, std::vector<std::string>& reasons) {
  uint64_t judged = 0;
  for (const auto& [name, n] : counts) judged += n;
  for (const auto& [name, n] : counts) {
    if (name == expected) continue;
    reasons.push_back(fmt::format("{} of {} connections negotiated {} {} instead of {}", n, judged,
                                  what, name, expected));
  }
}

}  // namespace

std::string_view PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kConnect:
      return "connect";
    case Phase::kHandshake:
      return "handshake";
    case Phase::kTtfb:
      return "ttfb";
    case Phase::kResponse:
      return "response";
    case Phase::kTotal:
      return "total";
  }
  return "?";
}

std::optional<double> ConnectMicros(const ConnectionRecord& c) {
  if (c.protocol == Protocol::kH3) return std::nullopt;  // QUIC has no connect of its own
  return Interval(c.actual_start, c.tcp_established);
}
std::optional<double> HandshakeMicros(const ConnectionRecord& c) {
  return Interval(c.tcp_established, c.tls_done);
}
std::optional<double> LagMicros(const ConnectionRecord& c) {
  return Interval(c.intended_start, c.actual_start);
}
std::optional<double> TtfbMicros(const RequestRecord& r) {
  return Interval(r.sent, r.first_byte);
}
std::optional<double> ResponseMicros(const RequestRecord& r) {
  return Interval(r.sent, r.last_byte);
}

std::optional<double> TotalMicros(const ConnectionRecord& c,
                                  std::span<const RequestRecord> requests) {
  if (!c.ok() || requests.empty()) return std::nullopt;
  return Interval(c.intended_start, requests.back().last_byte);
}

std::span<const RequestRecord> RequestsOf(const ConnectionRecord& c,
                                          const std::vector<RequestRecord>& all) {
  const size_t first = std::min<size_t>(c.first_request, all.size());
  const size_t count = std::min<size_t>(c.request_count, all.size() - first);
  return std::span<const RequestRecord>(all).subspan(first, count);
}

void AddPhaseSamples(const ConnectionRecord& c, const std::vector<RequestRecord>& all,
                     PhaseSamples& out) {
  auto add = [&out](Phase p, std::optional<double> v) {
    if (v) out[static_cast<size_t>(p)].push_back(*v);
  };
  const auto requests = RequestsOf(c, all);
  add(Phase::kConnect, ConnectMicros(c));
  add(Phase::kHandshake, HandshakeMicros(c));
  for (const RequestRecord& r : requests) {
    add(Phase::kTtfb, TtfbMicros(r));
    add(Phase::kResponse, ResponseMicros(r));
  }
  add(Phase::kTotal, TotalMicros(c, requests));
}

PhaseSamples MeasuredPhaseSamples(const LoadResult& result) {
  PhaseSamples samples;
  for (const ConnectionRecord& c : result.connections) {
    if (c.measured) AddPhaseSamples(c, result.requests, samples);
  }
  return samples;
}

void HandshakeBytesTally::Add(const ConnectionRecord& c) {
  ++handshakes_;
  written_ += c.handshake_bytes_written;
  read_ += c.handshake_bytes_read;
  if (c.handshake_segments_read > 0) {
    ++segments_n_;
    segments_ += c.handshake_segments_read;
  }
  const std::array<uint32_t, 4> sizes = {c.client_hello_bytes, c.server_hello_bytes,
                                         c.certificate_bytes, c.certificate_verify_bytes};
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) continue;  // not in this handshake (a resumed one has no Certificate)
    ++count_[i];
    sum_[i] += sizes[i];
  }
}

double HandshakeBytesTally::SegmentsMean() const {
  return Ratio(static_cast<double>(segments_), static_cast<double>(segments_n_));
}

void HandshakeBytesTally::Add(const HandshakeBytesTally& other) {
  handshakes_ += other.handshakes_;
  written_ += other.written_;
  read_ += other.read_;
  segments_n_ += other.segments_n_;
  segments_ += other.segments_;
  for (size_t i = 0; i < count_.size(); ++i) {
    count_[i] += other.count_[i];
    sum_[i] += other.sum_[i];
  }
}

ByteStats HandshakeBytesTally::Bytes() const {
  auto mean = [](uint64_t sum, uint64_t n) {
    return Ratio(static_cast<double>(sum), static_cast<double>(n));
  };
  ByteStats b;
  b.handshake_written_total = written_;
  b.handshake_read_total = read_;
  b.handshake_written_mean = mean(written_, handshakes_);
  b.handshake_read_mean = mean(read_, handshakes_);
  std::array<MessageBytes*, 4> out = {&b.client_hello, &b.server_hello, &b.certificate,
                                      &b.certificate_verify};
  for (size_t i = 0; i < out.size(); ++i) *out[i] = {count_[i], mean(sum_[i], count_[i])};
  return b;
}

LoadSummary Summarize(const LoadResult& result) {
  const LoadOptions& o = result.options;
  LoadSummary s;
  s.arm = ArmOf(o);

  PhaseSamples samples = MeasuredPhaseSamples(result);
  std::vector<double> lags;
  HandshakeBytesTally handshake_bytes;
  uint64_t started = 0;
  // Resumption state per mode: resume connections that offered a session but did a full
  // handshake; fresh/reuse connections that resumed.
  uint64_t resume_judged = 0, resume_missed = 0;
  std::map<std::string, uint64_t> resumed_by_mode;  // mode name → unexpected resumptions
  uint64_t reuse_ok = 0, reuse_short = 0;
  uint64_t early_unoffered = 0;  // early connections whose session allowed no early data
  const ConnectionRecord* first_error = nullptr;  // its detail goes into the invalid reason
  uint64_t quic_sent = 0, quic_received = 0;      // datagrams until the handshake completed

  for (const ConnectionRecord& c : result.connections) {
    if (!c.measured) continue;
    ++s.connections;
    if (c.actual_start != 0) ++started;
    if (!c.ok()) {
      ++s.errors;
      ++s.errors_by_class[std::string(ErrorClassName(c.error))];
      if (first_error == nullptr) first_error = &c;
    }
    for (const RequestRecord& r : RequestsOf(c, result.requests)) {
      s.bytes.response_body_total += r.body_bytes;
    }
    if (auto lag = LagMicros(c)) lags.push_back(*lag);

    const bool resuming = c.mode == ConnMode::kResume || c.mode == ConnMode::kEarly;
    if (resuming && !c.offered_session) ++s.negotiated.resume_without_session;
    if (c.early_data == EarlyData::kAccepted) ++s.negotiated.early_accepted;
    if (c.early_data == EarlyData::kRejected) ++s.negotiated.early_rejected;
    if (c.mode == ConnMode::kEarly && c.offered_session && c.early_bytes == 0) ++early_unoffered;
    if (c.tls_done == 0) continue;  // below: what a completed handshake negotiated

    NegotiatedCounts& n = s.negotiated;
    ++n.handshakes;
    if (!c.group.empty()) ++n.groups[c.group];
    if (c.signature_scheme != 0) ++n.sigalgs[SignatureSchemeName(c.signature_scheme)];
    if (c.cipher != nullptr && c.cipher[0] != '\0') ++n.ciphers[c.cipher];
    if (c.resumed) ++n.resumed;
    if (c.hrr) ++n.hrr;

    handshake_bytes.Add(c);
    if (c.protocol == Protocol::kH3) {
      ++s.quic.handshakes;
      ++s.quic.initial_datagrams[std::to_string(c.initial_datagrams)];
      quic_sent += c.handshake_datagrams_sent;
      quic_received += c.handshake_datagrams_received;
      if (c.amplification_limited) ++s.quic.amplification_limited;
      if (c.retried) ++s.quic.retried;
    }

    if (resuming) {
      if (c.offered_session) {
        ++resume_judged;
        if (!c.resumed) ++resume_missed;
      }
    } else if (c.resumed) {
      ++resumed_by_mode[std::string(ConnModeName(c.mode))];
    }
    if (c.mode == ConnMode::kReuse && c.ok()) {
      ++reuse_ok;
      if (c.request_count != o.requests) ++reuse_short;
    }
  }

  for (Phase p : kAllPhases) {
    const auto i = static_cast<size_t>(p);
    s.phases[i] = Summarize(std::move(samples[i]));
  }
  s.error_rate = Ratio(static_cast<double>(s.errors), static_cast<double>(s.connections));
  const auto quic_n = static_cast<double>(s.quic.handshakes);
  s.quic.datagrams_sent_mean = Ratio(static_cast<double>(quic_sent), quic_n);
  s.quic.datagrams_received_mean = Ratio(static_cast<double>(quic_received), quic_n);

  const uint64_t body_total = s.bytes.response_body_total;
  s.bytes = handshake_bytes.Bytes();
  s.bytes.response_body_total = body_total;

  LoadgenHealth& g = s.loadgen;
  std::sort(lags.begin(), lags.end());
  g.rate_target = o.rate;
  g.wall_s = result.measured_wall_s;
  g.threads = result.threads;
  g.rate_achieved = Ratio(static_cast<double>(started), result.measured_wall_s);
  g.lag_p50_us = Percentile(lags, 0.50);
  g.lag_p99_us = Percentile(lags, 0.99);
  g.lag_max_us = lags.empty() ? PhaseStats::kUndefined : lags.back();
  g.lag_limit_us = NanosToMicros(o.max_lag_p99);
  g.cpu_user_s = result.cpu_user_s;
  g.cpu_sys_s = result.cpu_sys_s;
  const double cpu_s = result.cpu_user_s + result.cpu_sys_s;
  g.cpu_us_per_connection = Ratio(cpu_s * 1e6, static_cast<double>(s.connections));
  // CPU was accounted from the start of the measured phase until the threads finished
  // draining, so it is shared over that time, not over the (shorter) arrival window.
  const double cpu_wall = result.cpu_wall_s > 0 ? result.cpu_wall_s : result.measured_wall_s;
  g.cpu_share = Ratio(cpu_s, cpu_wall * result.threads);
  g.cpu_share_limit = o.max_cpu_share;
  // NaN compares false: an undefined lag or share does not claim saturation.
  g.saturated_by_lag = g.lag_p99_us > g.lag_limit_us;
  // A closed loop runs the client flat out by design (it replaces each connection at once),
  // so a busy client is its normal state, not a broken schedule; its share is still reported.
  // Busy polling keeps the threads on the CPU by design as well.
  g.saturated_by_cpu = o.closed_loop == 0 && !o.busy_poll && g.cpu_share > g.cpu_share_limit;
  g.saturated = g.saturated_by_lag || g.saturated_by_cpu;
  g.skipped = result.skipped;
  g.unfinished = result.unfinished;

  std::vector<std::string>& why = s.invalid_reasons;
  if (s.connections == 0) why.push_back("no measured connections");
  if (result.start_late > o.max_start_late) {
    // The other shards (or sites) measured without this one for that long: not the agreed
    // load.
    why.push_back(fmt::format("started {:.1f} ms after the start barrier ({}limit {:.1f} ms)",
                              static_cast<double>(result.start_late) / 1e6,
                              o.shard.sharded() ? fmt::format("shard {}; ", o.shard.Label()) : "",
                              static_cast<double>(o.max_start_late) / 1e6));
  }
  if (g.saturated_by_lag) {
    // The median and the CPU say which: a generator behind its schedule is late at the median
    // too, a machine that paused is late only in its tail.
    const std::string cpu =
        std::isnan(g.cpu_share) ? "" : fmt::format(", CPU {:.1f} %", g.cpu_share * 100);
    why.push_back(
        fmt::format("load generator saturated: lag p99 {:.1f} µs > {} µs (median {:.1f} µs{})",
                    g.lag_p99_us, g.lag_limit_us, g.lag_p50_us, cpu));
  }
  if (g.saturated_by_cpu) {
    why.push_back(fmt::format("load generator saturated: CPU {:.1f} % of {} threads > {:.4g} %",
                              g.cpu_share * 100, g.threads, g.cpu_share_limit * 100));
  }
  if (g.skipped > 0) {
    why.push_back(
        fmt::format("{} arrivals skipped: max in-flight ({}) reached", g.skipped, o.max_inflight));
  }
  if (s.error_rate > o.max_error_rate) {
    // The classes and the first error's own words (address, errno or OpenSSL reason): a
    // refused port or a dead server must be recognisable from the reason alone.
    std::string classes;
    for (const auto& [name, n] : s.errors_by_class) {
      classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", name, n);
    }
    why.push_back(
        fmt::format("error rate {:.2f} % ({} of {} connections) > {:.4g} %: {}; first: {}",
                    s.error_rate * 100, s.errors, s.connections, o.max_error_rate * 100, classes,
                    first_error != nullptr ? first_error->error_detail : ""));
  }
  if (!o.expect_group.empty()) {
    Mismatches(s.negotiated.groups, CanonicalGroupName(o.expect_group), "group", why);
  }
  if (!o.expect_sigalg.empty()) {
    Mismatches(s.negotiated.sigalgs, ExpectedSigalg(o.expect_sigalg), "signature algorithm", why);
  }
  if (s.negotiated.resume_without_session > 0) {
    why.push_back(
        fmt::format("{} resume connections had no session to offer (did the server "
                    "issue tickets during warm-up?)",
                    s.negotiated.resume_without_session));
  }
  if (resume_missed > 0) {
    why.push_back(
        fmt::format("{} of {} resume connections were not resumed", resume_missed, resume_judged));
  }
  if (s.negotiated.early_rejected > 0 && !o.early_rejection_expected) {
    why.push_back(fmt::format(
        "the server rejected early data on {} of {} connections that offered it (is early data "
        "on at the server? `early_data = true` for the embedded server and nginx)",
        s.negotiated.early_rejected, s.negotiated.early_rejected + s.negotiated.early_accepted));
  }
  if (early_unoffered > 0 && !o.early_rejection_expected) {
    why.push_back(fmt::format(
        "{} early connections could not send early data: the server's tickets allow none (is "
        "early data on at the server?)",
        early_unoffered));
  }
  if (o.early_rejection_expected && s.negotiated.early_accepted > 0) {
    why.push_back(
        fmt::format("the server accepted early data on {} connections, where the arm "
                    "expects it rejected",
                    s.negotiated.early_accepted));
  }
  for (const auto& [mode, n] : resumed_by_mode) {
    if (o.mix.size() > 1) {
      why.push_back(fmt::format("{} {} connections resumed in a mix arm", n, mode));
    } else {
      why.push_back(fmt::format("{} connections resumed in a {} arm", n, mode));
    }
  }
  if (reuse_short > 0) {
    why.push_back(fmt::format("{} of {} reuse connections did not complete {} requests",
                              reuse_short, reuse_ok, o.requests));
  }
  return s;
}

}  // namespace pqc
