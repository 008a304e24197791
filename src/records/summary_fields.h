// summary_fields — the JSON form of a LoadSummary (`load --json`, and each stored trial's
// summary_json) as one field list per record, walked by core/json_fields.h's writer and
// reader, so that what the load generator writes and what merge and the reports read back
// cannot disagree. Key order is the document's since its first version; the load
// generator's saturation flags (saturated_by_lag, _by_cpu) are not in it: its reasons say which.
#pragma once

#include "core/json_fields.h"
#include "records/summary.h"

namespace pqc {

template <class R, class V>
requires json_fields::Of<R, PhaseStats>
void Fields(R& r, V& v) {
  v("count", r.count);
  v("min", r.min);
  v("mean", r.mean);
  v("p50", r.p50);
  v("p75", r.p75);
  v("p90", r.p90);
  v("p95", r.p95);
  v("p99", r.p99);
  v("p999", r.p999);
  v("max", r.max);
}

template <class R, class V>
requires json_fields::Of<R, ArmInfo>
void Fields(R& r, V& v) {
  v("target", r.target);
  v("server_name", r.server_name);
  v("mode", r.mode);
  v("mix", r.mix);
  v("rate", r.rate);
  v("arrivals", r.arrivals);
  v("busy_poll", r.busy_poll);
  v("duration_s", r.duration_s);
  v("warmup_s", r.warmup_s);
  v("requests", r.requests);
  v("request_interval_s", r.request_interval_s);
  v("streams", r.streams);
  v("path", r.path);
  v("protocol", r.protocol);
  v("groups", r.groups);
  v("key_shares", r.key_shares);
  v("sigalgs", r.sigalgs);
  v("threads", r.threads);
  v("timeout_s", r.timeout_s);
}

template <class R, class V>
requires json_fields::Of<R, MessageBytes>
void Fields(R& r, V& v) {
  v("count", r.count);
  v("mean", r.mean);
}

template <class R, class V>
requires json_fields::Of<R, ByteStats>
void Fields(R& r, V& v) {
  v.Group("handshake_written", [&](auto& g) {
    g("total", r.handshake_written_total);
    g("mean", r.handshake_written_mean);
  });
  v.Group("handshake_read", [&](auto& g) {
    g("total", r.handshake_read_total);
    g("mean", r.handshake_read_mean);
  });
  v("client_hello", r.client_hello);
  v("server_hello", r.server_hello);
  v("certificate", r.certificate);
  v("certificate_verify", r.certificate_verify);
  v.Group("response_body", [&](auto& g) { g("total", r.response_body_total); });
}

template <class R, class V>
requires json_fields::Of<R, QuicCounts>
void Fields(R& r, V& v) {
  v("handshakes", r.handshakes);
  v("initial_datagrams", r.initial_datagrams);
  v("datagrams_sent_mean", r.datagrams_sent_mean);
  v("datagrams_received_mean", r.datagrams_received_mean);
  v("amplification_limited", r.amplification_limited);
  v("retried", r.retried);
}

template <class R, class V>
requires json_fields::Of<R, LoadgenHealth>
void Fields(R& r, V& v) {
  v("rate_target", r.rate_target);
  v("rate_achieved", r.rate_achieved);
  v("lag_p99_us", r.lag_p99_us);
  v("cpu_user_s", r.cpu_user_s);
  v("cpu_sys_s", r.cpu_sys_s);
  v("cpu_us_per_connection", r.cpu_us_per_connection);
  v("saturated", r.saturated);
  v("lag_p50_us", r.lag_p50_us);
  v("lag_max_us", r.lag_max_us);
  v("lag_limit_us", r.lag_limit_us);
  v("cpu_share", r.cpu_share);
  v("cpu_share_limit", r.cpu_share_limit);
  v("wall_s", r.wall_s);
  v("threads", r.threads);
  v("skipped", r.skipped);
  v("unfinished", r.unfinished);
}

template <class R, class V>
requires json_fields::Of<R, NegotiatedCounts>
void Fields(R& r, V& v) {
  v("groups", r.groups);
  v("sigalgs", r.sigalgs);
  v("resumed", r.resumed);
  v("hrr", r.hrr);
  v("cipher", r.ciphers);
  v("handshakes", r.handshakes);
  v("resume_without_session", r.resume_without_session);
  v.Group("early_data", [&](auto& g) {
    g("accepted", r.early_accepted);
    g("rejected", r.early_rejected);
  });
}

template <class R, class V>
requires json_fields::Of<R, LoadSummary>
void Fields(R& r, V& v) {
  v("arm", r.arm);
  v("connections", r.connections);
  v.Group("errors", [&](auto& g) {
    g("total", r.errors);
    g("by_class", r.errors_by_class);
    g("rate", r.error_rate);
  });
  v("negotiated", r.negotiated);
  v.Group("phases", [&](auto& g) {
    for (Phase p : kAllPhases) g(PhaseName(p).data(), r.phases[static_cast<size_t>(p)]);
  });
  v("bytes", r.bytes);
  v("quic", r.quic);
  v("loadgen", r.loadgen);
  v.Computed("valid", r.valid());
  v("invalid_reasons", r.invalid_reasons);
}

}  // namespace pqc
