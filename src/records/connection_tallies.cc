#include "records/connection_tallies.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "tls/algorithms.h"

namespace pqc::tally {
namespace {

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

bool Resuming(const ConnectionRecord& c) {
  return c.mode == ConnMode::kResume || c.mode == ConnMode::kEarly;
}

}  // namespace

void Errors::Add(const ConnectionRecord& c) {
  ++connections_;
  if (c.ok()) return;
  ++errors_;
  ++by_class_[std::string(ErrorClassName(c.error))];
  if (first_ == nullptr) first_ = &c;
}

void Errors::Fill(LoadSummary& s) const {
  s.connections = connections_;
  s.errors = errors_;
  s.errors_by_class = by_class_;
  s.error_rate = Ratio(static_cast<double>(errors_), static_cast<double>(connections_));
}

void Errors::Reasons(const LoadSummary& s, const LoadOptions& o,
                     std::vector<std::string>& why) const {
  if (!(s.error_rate > o.max_error_rate)) return;  // NaN (no connections) is not a rate
  // The classes and the first error's own words (address, errno or OpenSSL reason): a
  // refused port or a dead server must be recognisable from the reason alone.
  std::string classes;
  for (const auto& [name, n] : by_class_) {
    classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", name, n);
  }
  why.push_back(fmt::format("error rate {:.2f} % ({} of {} connections) > {:.4g} %: {}; first: {}",
                            s.error_rate * 100, errors_, connections_, o.max_error_rate * 100,
                            classes, first_ != nullptr ? first_->error_detail : ""));
}

void Negotiation::Add(const ConnectionRecord& c) {
  const bool resuming = Resuming(c);
  if (resuming && !c.offered_session) ++n_.resume_without_session;
  if (c.early_data == EarlyData::kAccepted) ++n_.early_accepted;
  if (c.early_data == EarlyData::kRejected) ++n_.early_rejected;
  if (c.mode == ConnMode::kEarly && c.offered_session && c.early_bytes == 0) ++early_unoffered_;
  if (c.tls_done == 0) return;  // below: what a completed handshake negotiated

  ++n_.handshakes;
  if (!c.group.empty()) ++n_.groups[c.group];
  if (c.signature_scheme != 0) ++n_.sigalgs[SignatureSchemeName(c.signature_scheme)];
  if (c.cipher != nullptr && c.cipher[0] != '\0') ++n_.ciphers[c.cipher];
  if (c.resumed) ++n_.resumed;
  if (c.hrr) ++n_.hrr;
  if (resuming) {
    if (c.offered_session) {
      ++resume_judged_;
      if (!c.resumed) ++resume_missed_;
    }
  } else if (c.resumed) {
    ++resumed_by_mode_[std::string(ConnModeName(c.mode))];
  }
}

void Negotiation::Reasons(const LoadOptions& o, std::vector<std::string>& why) const {
  if (!o.expect_group.empty()) {
    Mismatches(n_.groups, CanonicalGroupName(o.expect_group), "group", why);
  }
  if (!o.expect_sigalg.empty()) {
    Mismatches(n_.sigalgs, ExpectedSigalg(o.expect_sigalg), "signature algorithm", why);
  }
  if (n_.resume_without_session > 0) {
    why.push_back(
        fmt::format("{} resume connections had no session to offer (did the server "
                    "issue tickets during warm-up?)",
                    n_.resume_without_session));
  }
  if (resume_missed_ > 0) {
    why.push_back(fmt::format("{} of {} resume connections were not resumed", resume_missed_,
                              resume_judged_));
  }
  if (n_.early_rejected > 0 && !o.early_rejection_expected) {
    why.push_back(fmt::format(
        "the server rejected early data on {} of {} connections that offered it (is early data "
        "on at the server? `early_data = true` for the embedded server and nginx)",
        n_.early_rejected, n_.early_rejected + n_.early_accepted));
  }
  if (early_unoffered_ > 0 && !o.early_rejection_expected) {
    why.push_back(fmt::format(
        "{} early connections could not send early data: the server's tickets allow none (is "
        "early data on at the server?)",
        early_unoffered_));
  }
  if (o.early_rejection_expected && n_.early_accepted > 0) {
    why.push_back(
        fmt::format("the server accepted early data on {} connections, where the arm "
                    "expects it rejected",
                    n_.early_accepted));
  }
  for (const auto& [mode, n] : resumed_by_mode_) {
    if (o.mix.size() > 1) {
      why.push_back(fmt::format("{} {} connections resumed in a mix arm", n, mode));
    } else {
      why.push_back(fmt::format("{} connections resumed in a {} arm", n, mode));
    }
  }
}

void Quic::Add(const ConnectionRecord& c) {
  if (!OverQuic(c.protocol)) return;
  ++q_.handshakes;
  ++q_.initial_datagrams[std::to_string(c.initial_datagrams)];
  sent_ += c.handshake_datagrams_sent;
  received_ += c.handshake_datagrams_received;
  if (c.amplification_limited) ++q_.amplification_limited;
  if (c.retried) ++q_.retried;
}

QuicCounts Quic::Counts() const {
  QuicCounts q = q_;
  const auto n = static_cast<double>(q.handshakes);
  q.datagrams_sent_mean = Ratio(static_cast<double>(sent_), n);
  q.datagrams_received_mean = Ratio(static_cast<double>(received_), n);
  return q;
}

void Reuse::Add(const ConnectionRecord& c, uint32_t requests) {
  if (c.mode != ConnMode::kReuse || !c.ok()) return;
  ++ok_;
  if (c.request_count != requests) ++short_;
}

void Reuse::Reasons(const LoadOptions& o, std::vector<std::string>& why) const {
  if (short_ == 0) return;
  why.push_back(fmt::format("{} of {} reuse connections did not complete {} requests", short_, ok_,
                            o.requests));
}

void Schedule::Add(const ConnectionRecord& c) {
  if (c.actual_start != 0) ++started_;
  if (auto lag = LagMicros(c)) lags_.push_back(*lag);
}

LoadgenHealth Schedule::Health(const LoadResult& result, uint64_t connections) {
  const LoadOptions& o = result.options;
  LoadgenHealth g;
  std::sort(lags_.begin(), lags_.end());
  g.rate_target = o.rate;
  g.wall_s = result.measured_wall_s;
  g.threads = result.threads;
  g.rate_achieved = Ratio(static_cast<double>(started_), result.measured_wall_s);
  g.lag_p50_us = Percentile(lags_, 0.50);
  g.lag_p99_us = Percentile(lags_, 0.99);
  g.lag_max_us = lags_.empty() ? PhaseStats::kUndefined : lags_.back();
  g.lag_limit_us = NanosToMicros(o.max_lag_p99);
  g.cpu_user_s = result.cpu_user_s;
  g.cpu_sys_s = result.cpu_sys_s;
  const double cpu_s = result.cpu_user_s + result.cpu_sys_s;
  g.cpu_us_per_connection = Ratio(cpu_s * 1e6, static_cast<double>(connections));
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
  return g;
}

void Schedule::Reasons(const LoadResult& result, const LoadgenHealth& g,
                       std::vector<std::string>& why) {
  const LoadOptions& o = result.options;
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
}

}  // namespace pqc::tally
