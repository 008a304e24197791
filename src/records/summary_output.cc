#include "records/summary_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/text_table.h"
#include "records/summary_fields.h"

namespace pqc {
namespace {

using Json = nlohmann::ordered_json;

// ---- table ----

// Fixed: one decimal, or "-" when undefined.
std::string Fixed(double v, int decimals = 1) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : std::string("-");
}

std::string CountList(const std::map<std::string, uint64_t>& counts) {
  if (counts.empty()) return "-";
  std::string out;
  for (const auto& [name, n] : counts) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", name, n);
  }
  return out;
}

std::string Joined(const std::vector<std::string>& items, std::string_view sep) {
  if (items.empty()) return "default";
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += sep;
    out += item;
  }
  return out;
}

std::string MessageText(const MessageBytes& m) {
  return m.count == 0 ? std::string("-") : fmt::format("{} (in {})", Fixed(m.mean), m.count);
}

void WritePhaseTable(std::ostream& out, const LoadSummary& s) {
  Table t;
  t.headers = {"phase (µs)", "count", "min", "mean",  "p50", "p75",
               "p90",        "p95",   "p99", "p99.9", "max"};
  t.right.assign(t.headers.size(), true);
  t.right[0] = false;
  for (Phase phase : kAllPhases) {
    const PhaseStats& p = s.phase(phase);
    t.rows.push_back({std::string(PhaseName(phase)), std::to_string(p.count), Fixed(p.min),
                      Fixed(p.mean), Fixed(p.p50), Fixed(p.p75), Fixed(p.p90), Fixed(p.p95),
                      Fixed(p.p99), Fixed(p.p999), Fixed(p.max)});
  }
  WriteMarkdownTable(out, t, /*aligned=*/true);
}

}  // namespace

void WriteSummaryTable(std::ostream& out, const LoadSummary& s) {
  const ArmInfo& a = s.arm;
  out << fmt::format(
      "load {} → {}{}: {} /s {} for {} s after {} s warm-up, {} request(s) of {}{}\n", a.mode,
      a.target.empty() ? "-" : a.target,
      a.protocol == Protocol::kH3   ? " over HTTP/3 (QUIC)"
      : a.protocol == Protocol::kH2 ? " over HTTP/2"
                                    : "",
      Fixed(a.rate), a.arrivals, Fixed(a.duration_s), Fixed(a.warmup_s), a.requests, a.path,
      a.streams > 1 ? fmt::format(", {} at a time on streams of their own", a.streams) : "");
  out << fmt::format("groups {} (key shares {}), sigalgs {}, {} thread(s){}\n\n",
                     Joined(a.groups, ":"), Joined(a.key_shares, ":"), Joined(a.sigalgs, ":"),
                     a.threads, a.busy_poll ? ", busy polling" : "");

  WritePhaseTable(out, s);

  const NegotiatedCounts& n = s.negotiated;
  out << fmt::format("\nnegotiated ({} handshakes)\n", n.handshakes);
  out << fmt::format("- groups: {}\n", CountList(n.groups));
  out << fmt::format("- signature algorithms: {}\n", CountList(n.sigalgs));
  out << fmt::format("- ciphers: {}\n", CountList(n.ciphers));
  out << fmt::format("- resumed: {}, HelloRetryRequest: {}\n", n.resumed, n.hrr);
  if (n.early_accepted + n.early_rejected > 0) {
    out << fmt::format("- early data: accepted {}, rejected {}\n", n.early_accepted,
                       n.early_rejected);
  }

  const ByteStats& b = s.bytes;
  out << "\nbytes (mean per connection)\n";
  out << fmt::format("- handshake written: {} (total {})\n", Fixed(b.handshake_written_mean),
                     b.handshake_written_total);
  out << fmt::format("- handshake read: {} (total {})\n", Fixed(b.handshake_read_mean),
                     b.handshake_read_total);
  out << fmt::format("- ClientHello {}, ServerHello {}\n", MessageText(b.client_hello),
                     MessageText(b.server_hello));
  out << fmt::format("- Certificate {}, CertificateVerify {}\n", MessageText(b.certificate),
                     MessageText(b.certificate_verify));
  out << fmt::format("- response bodies: {} total\n", b.response_body_total);
  if (const QuicCounts& q = s.quic; q.handshakes > 0) {
    // Over QUIC the handshake bytes above are whole UDP datagrams.
    std::string initials;
    for (const auto& [count, conns] : q.initial_datagrams) {
      initials += fmt::format("{}{} in {}", initials.empty() ? "" : ", ", count, conns);
    }
    out << fmt::format("\nQUIC datagrams until the handshake completed ({} handshakes)\n",
                       q.handshakes);
    out << fmt::format("- sent {}, received {} (mean); the ClientHello's Initials: {}\n",
                       Fixed(q.datagrams_sent_mean), Fixed(q.datagrams_received_mean), initials);
    out << fmt::format(
        "- server's flight held back by the anti-amplification limit (over 3× the client's "
        "Initials): {} of {}\n",
        q.amplification_limited, q.handshakes);
    out << fmt::format(
        "- asked first to validate the client's address (a Retry: one more round trip): {} of {}\n",
        q.retried, q.handshakes);
  }

  const LoadgenHealth& g = s.loadgen;
  out << fmt::format("\nload generator{}\n", g.saturated ? " (SATURATED)" : "");
  out << fmt::format("- rate: target {} /s, achieved {} /s over {} s\n", Fixed(g.rate_target),
                     Fixed(g.rate_achieved), Fixed(g.wall_s, 3));
  out << fmt::format("- start lag: p50 {} µs, p99 {} µs, max {} µs (limit p99 {} µs)\n",
                     Fixed(g.lag_p50_us), Fixed(g.lag_p99_us), Fixed(g.lag_max_us),
                     Fixed(g.lag_limit_us));
  out << fmt::format(
      "- CPU: user {} s, sys {} s, {} µs per connection, {} % of {} thread(s) (limit {} %)\n",
      Fixed(g.cpu_user_s, 3), Fixed(g.cpu_sys_s, 3), Fixed(g.cpu_us_per_connection),
      Fixed(g.cpu_share * 100), g.threads, Fixed(g.cpu_share_limit * 100));
  out << fmt::format("- skipped arrivals: {}, unfinished connections: {}\n", g.skipped,
                     g.unfinished);

  out << fmt::format("\nconnections: {} measured, {} errors ({} %){}{}\n", s.connections, s.errors,
                     Fixed(s.error_rate * 100, 2), s.errors > 0 ? ": " : "",
                     s.errors > 0 ? CountList(s.errors_by_class) : "");

  if (s.valid()) {
    out << "\nVALID\n";
  } else {
    out << "\nINVALID\n";
    for (const std::string& reason : s.invalid_reasons) out << "- " << reason << '\n';
  }
}

nlohmann::ordered_json SummaryJson(const LoadSummary& s) {
  return json_fields::Write(s);
}

Result<LoadSummary> LoadSummaryFromJson(const nlohmann::json& j, std::string_view what) {
  LoadSummary s;
  if (Status st = json_fields::Read(j, s, what); !st) return st.error();
  return s;
}

void WriteSummaryJson(std::ostream& out, const LoadSummary& s) {
  // replace: a stray non-UTF-8 byte (e.g. from a target name) must not abort the output.
  out << SummaryJson(s).dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace pqc
