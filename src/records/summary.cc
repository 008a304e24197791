#include "records/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "core/split.h"
#include "records/connection_tallies.h"

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
  arm.streams = o.streams;
  arm.path = o.path;
  arm.protocol = o.protocol;
  arm.groups = o.tls.groups;
  arm.key_shares = o.tls.key_shares;
  for (std::string_view a : Split(o.tls.sigalgs, ":")) {
    if (!a.empty()) arm.sigalgs.emplace_back(a);
  }
  arm.threads = o.threads;
  arm.timeout_s = Seconds(o.timeout);
  return arm;
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
  // The latest end, not the last request's: concurrent HTTP/2 streams end in any order.
  Nanos last = 0;
  for (const RequestRecord& r : requests) last = std::max(last, r.last_byte);
  return Interval(c.intended_start, last);
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
  return tally::Ratio(static_cast<double>(segments_), static_cast<double>(segments_n_));
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
    return tally::Ratio(static_cast<double>(sum), static_cast<double>(n));
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
  tally::Errors errors;
  tally::Negotiation negotiation;
  tally::Quic quic;
  tally::Reuse reuse;
  tally::Schedule schedule;
  HandshakeBytesTally handshake_bytes;
  for (const ConnectionRecord& c : result.connections) {
    if (!c.measured) continue;
    errors.Add(c);
    schedule.Add(c);
    negotiation.Add(c);
    reuse.Add(c, o.requests);
    for (const RequestRecord& r : RequestsOf(c, result.requests)) {
      s.bytes.response_body_total += r.body_bytes;
    }
    if (c.tls_done == 0) continue;  // below: what a completed handshake sent
    handshake_bytes.Add(c);
    quic.Add(c);
  }

  for (Phase p : kAllPhases) {
    const auto i = static_cast<size_t>(p);
    s.phases[i] = Summarize(std::move(samples[i]));
  }
  errors.Fill(s);
  s.negotiated = negotiation.counts();
  s.quic = quic.Counts();
  const uint64_t body_total = s.bytes.response_body_total;
  s.bytes = handshake_bytes.Bytes();
  s.bytes.response_body_total = body_total;
  s.loadgen = schedule.Health(result, s.connections);

  std::vector<std::string>& why = s.invalid_reasons;
  if (s.connections == 0) why.push_back("no measured connections");
  tally::Schedule::Reasons(result, s.loadgen, why);
  errors.Reasons(s, o, why);
  negotiation.Reasons(o, why);
  reuse.Reasons(o, why);
  return s;
}

}  // namespace pqc
