#include "report/text_report.h"

#include <fmt/format.h>

#include <cmath>

#include "core/csv.h"
#include "core/protocol.h"
#include "core/quic_flight.h"
#include "core/slow_start.h"
#include "core/text_table.h"
#include "report/cell_format.h"
#include "report/comparison_phase.h"
#include "report/cpu_tables.h"
#include "report/site_table.h"
#include "report/stop_lines.h"
#include "report/study_findings.h"
#include "report/variance_table.h"
#include "tls/quic_messages.h"

namespace pqc::report {
namespace {

std::string Bytes(std::optional<double> b) {
  return Fixed(b, 0);
}

// Overhead: the comparison of `arm` against its baseline in the first varying factor, for
// one phase and statistic ("" when the arm is a baseline or has none).
std::string Overhead(const Summary& s, uint64_t arm, Phase phase, Statistic stat) {
  for (const Comparison& c : s.comparisons) {
    if (c.arm != arm || ComparisonPhase(c) != phase) continue;
    if (!s.factors.empty() && c.factor != s.factors[0]) continue;
    return fmt::format("{} (vs {}){}", OfStatistic(c.diffs, stat).verdict, c.from,
                       c.from_invalid_trials ? " INVALID DATA" : "");
  }
  return "";
}

// Label: the arm's name, marked when its numbers come from invalid trials only.
std::string Label(const ArmSummary& a) {
  return a.label + (a.from_invalid_trials ? " (INVALID)" : "");
}

void Heading(std::ostream& out, TextStyle style, const std::string& text) {
  out << '\n' << (style == TextStyle::kMarkdown ? "## " : "") << text << "\n";
  if (style == TextStyle::kMarkdown) out << '\n';
}

void Print(std::ostream& out, TextStyle style, const Table& t) {
  if (style == TextStyle::kMarkdown) {
    WriteMarkdownTable(out, t);
  } else {
    WriteTextTable(out, t);
  }
}

void Header(std::ostream& out, const Summary& s, TextStyle style) {
  const RunFacts& r = s.run;
  out << (style == TextStyle::kMarkdown ? "# " : "") << r.title << '\n';
  if (style == TextStyle::kMarkdown) out << '\n';
  out << fmt::format(
      "{} · {} of {} trials · target {} · {} · {} ({} cores) · {} · pqc-bench {} ({})\n",
      r.complete ? "complete" : "INCOMPLETE (interrupted; run --resume DIR)", r.trials_done,
      r.trials_planned, r.target, r.openssl_version, r.cpu_model, r.cores, r.kernel, r.tool_version,
      r.git_commit);
  out << fmt::format(
      "started {}{}; latencies in ms; intervals: {:.0f} % {}\n", r.started,
      r.ended ? ", ended " + *r.ended : "", r.confidence * 100,
      r.replicate == "trial"
          ? "over trials (the trial is the replicate; comparisons paired by block)"
          : "bootstrap over the valid trials' connections (written before intervals were over "
            "trials: too narrow on a shared machine)");
}

void PhaseTable(std::ostream& out, const Summary& s, TextStyle style, Phase phase) {
  Table t;
  t.headers = {"arm",
               "trials",
               "conns",
               "min",
               "mean",
               "p50",
               "p95",
               "p99",
               "max",
               "p50 overhead [95 % CI]",
               "p99 overhead [95 % CI]"};
  t.right = {false, true, true, true, true, true, true, true, true, false, false};
  for (const ArmSummary& a : s.arms) {
    const PhaseSummary* p = a.phase(phase);
    if (p == nullptr) continue;
    t.rows.push_back({Label(a), fmt::format("{}/{}", a.trials.valid, a.trials.done),
                      fmt::format("{}", p->count), Ms(p->min), Ms(p->mean), Ms(p->p50), Ms(p->p95),
                      Ms(p->p99), Ms(p->max), Overhead(s, a.id, phase, Statistic::kP50),
                      Overhead(s, a.id, phase, Statistic::kP99)});
  }
  if (t.rows.empty()) return;
  Heading(out, style, fmt::format("{} (ms)", PhaseName(phase)));
  Print(out, style, t);
}

void CostTable(std::ostream& out, const Summary& s, TextStyle style) {
  Table t;
  t.headers = {"arm", "ClientHello B", "Certificate B", "CertVerify B", "server flight B"};
  t.right = {false, true, true, true, true};
  for (const ArmSummary& a : s.arms) {
    if (a.status == ArmOutcome::kFailed) continue;
    const WireBytes& b = a.bytes;
    t.rows.push_back({Label(a), Bytes(b.client_hello), Bytes(b.certificate),
                      Bytes(b.certificate_verify), Bytes(b.server_first_flight)});
  }
  if (t.rows.empty()) return;
  Heading(out, style, "bytes on the wire (means)");
  Print(out, style, t);
}

// ExpectedQuicRoundTrips: an h3 arm's fresh handshake in round trips as the QUIC model gives it
// (core/quic_flight.h) from the arm's mean message sizes: the ClientHello's Initial datagrams
// earn the server a budget of three times their bytes until the client replies; 0 when a size
// is missing. `why` names what held the first round back.
uint32_t ExpectedQuicRoundTrips(const WireBytes& b, std::string* why) {
  if (!b.client_hello || !b.server_hello || !b.certificate || !b.certificate_verify) return 0;
  const auto whole = [](double v) { return static_cast<uint32_t>(std::lround(v)); };
  const QuicServerFlight flight{whole(*b.server_hello), kQuicEncryptedExtensionsBytes,
                                whole(*b.certificate), whole(*b.certificate_verify),
                                kFinishedBytes};
  const QuicFlightRounds r = ModelQuicFlight(whole(*b.client_hello), flight);
  *why = fmt::format("QUIC: {} B flight {} 3 × {} B of Initials", r.flight_wire_bytes,
                     r.amplification_limited() ? ">" : "within", r.received_before_validation);
  return r.handshake_round_trips;
}

// RoundTripTable: for arms on an emulated network, the handshake in round trips next to what
// the server's first flight predicts under slow start (core/slow_start.h): the initial window
// is 10 segments and doubles each round trip while nothing is lost, so a flight of up to 10
// segments takes 1 round trip, up to 30 takes 2, up to 70 takes 3. Segments, not bytes,
// decide: a server writing its flight in pieces fills some segments partly (measured at the
// client), so bytes below 14,600 can still overflow. Below 20 ms of RTT the handshake's CPU
// time is a large part of it, so no count is claimed there.
void RoundTripTable(std::ostream& out, const Summary& s, TextStyle style) {
  constexpr double kMinRttMs = 20;
  Table t;
  t.headers = {"arm",
               "RTT ms",
               "handshake p50 ms",
               "in RTTs",
               "server flight B",
               "segments",
               "expected (no HRR)",
               "measured"};
  t.right = {false, true, true, true, true, true, false, false};
  for (const ArmSummary& a : s.arms) {
    const PhaseSummary* handshake = a.phase(Phase::kHandshake);
    if (a.status == ArmOutcome::kFailed || !a.rtt_ms || *a.rtt_ms <= 0 || handshake == nullptr)
      continue;
    const double rtt = *a.rtt_ms;
    const std::optional<double> p50_us = handshake->p50;
    const std::optional<double> segments = a.bytes.server_first_flight_segments;
    const bool counted = rtt >= kMinRttMs && p50_us;
    const double rtts = p50_us.value_or(NAN) / 1000.0 / rtt;
    long expected_rtts = 0;
    std::string expected = "-";
    // The arm's echo names its protocol (h1 when older files lack it); parsed once here.
    const Result<Protocol> protocol = ParseProtocol(a.FactorText("protocol", "h1"));
    if (protocol && OverQuic(*protocol)) {
      std::string why;
      expected_rtts = ExpectedQuicRoundTrips(a.bytes, &why);
      // Address validation first (quic_retry): the Retry and the client's second Initial are
      // a round trip before anything else, and lift the limit of 3× (RFC 9000 §8.1.2).
      if (expected_rtts != 0 && a.FactorText("quic_retry", "false") == "true") {
        expected_rtts = 2;
        why = "QUIC: a Retry first, then the whole flight";
      }
      if (expected_rtts != 0) expected = fmt::format("{} ({})", expected_rtts, why);
    } else if (segments) {
      expected_rtts = SlowStartRoundTrips(*segments);
      expected = expected_rtts == 1 ? "1 (fits)"
                                    : fmt::format("{} (slow start: {} segments)", expected_rtts,
                                                  std::ceil(*segments));
    }
    std::string measured = "-";
    if (counted) {
      const long n = std::lround(rtts);
      measured = fmt::format("{}", n);
      if (expected_rtts != 0 && n != expected_rtts) measured += " UNEXPECTED";
    }
    t.rows.push_back({Label(a), fmt::format("{:g}", rtt), Ms(p50_us),
                      counted ? fmt::format("{:.2f}", rtts) : "-",
                      Bytes(a.bytes.server_first_flight),
                      segments ? fmt::format("{:.1f}", *segments) : "-", expected, measured});
  }
  if (t.rows.empty()) return;
  Heading(out, style,
          "round trips of the fresh handshake (initial window 10 segments, doubling each round "
          "trip without loss: up to 10, 30, 70 segments in 1, 2, 3; h3 arms: no connect, the "
          "server's flight within 3× the client's Initials until it replies; counted from 20 ms "
          "of RTT)");
  Print(out, style, t);
}

// Titled: a table with its heading and note (site_table.h, variance_table.h), when it has rows.
void Titled(std::ostream& out, const TitledTable& t, TextStyle style) {
  if (t.table.rows.empty()) return;
  Heading(out, style, t.title);
  out << (style == TextStyle::kMarkdown ? "" : "  ") << t.note << "\n";
  if (style == TextStyle::kMarkdown) out << '\n';
  Print(out, style, t.table);
}

// CpuSections: measured CPU vs the crypto floor, and the capacity view (cpu_tables.h).
void CpuSections(std::ostream& out, const Summary& s, TextStyle style) {
  for (const TitledTable& t : {FloorTable(s), CapacityTable(s)}) {
    if (t.table.rows.empty()) continue;
    Heading(out, style, t.title);
    out << (style == TextStyle::kMarkdown ? "" : "  ") << t.note << "\n";
    if (style == TextStyle::kMarkdown) out << '\n';
    Print(out, style, t.table);
    if (!t.lines.empty() && style == TextStyle::kMarkdown) out << '\n';
    for (const std::string& l : t.lines) {
      out << (style == TextStyle::kMarkdown ? "- " : "  ") << l << '\n';
    }
  }
}

void Problems(std::ostream& out, const Summary& s, TextStyle style) {
  std::vector<std::string> lines;
  for (const ArmSummary& a : s.arms) {
    const std::string& label = a.label;
    if (a.status == ArmOutcome::kFailed) {
      lines.push_back(fmt::format("FAILED {}: {}", label, a.failure.value_or("")));
    } else if (a.status == ArmOutcome::kInvalid) {
      lines.push_back(
          fmt::format("INVALID {}: no valid trial; its numbers above come from its "
                      "invalid trials (reasons below) and are not to be trusted",
                      label));
    }
    for (const OutlierSummary& o : a.outliers) {
      lines.push_back(fmt::format("OUTLIER {} trial {} ({} {}): {}", label, o.trial, o.phase,
                                  o.statistic, o.reason));
    }
  }
  if (auto pilot = PilotLine(s)) lines.push_back(*pilot);
  for (const TrialSummary& t : s.trials) {
    if (t.valid || PilotTrial(t, s.stop)) continue;
    std::string reasons;
    for (const std::string& r : t.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
    lines.push_back(fmt::format("invalid trial: arm {} block {}: {}", t.arm, t.block + 1,
                                t.interrupted ? "interrupted" : reasons));
  }
  if (lines.empty()) return;
  Heading(out, style, "problems");
  for (const std::string& l : lines)
    out << (style == TextStyle::kMarkdown ? "- " : "  ") << l << '\n';
}

// StopSection: how a study that stopped itself ended (stop_lines.h).
void StopSection(std::ostream& out, const Summary& s, TextStyle style) {
  if (!s.stop) return;
  const StopLines lines = LinesOf(*s.stop);
  Heading(out, style, "a study that stopped itself");
  const char* item = style == TextStyle::kMarkdown ? "- " : "  ";
  out << (style == TextStyle::kMarkdown ? "" : "  ") << lines.headline << '\n';
  if (style == TextStyle::kMarkdown) out << '\n';
  for (const std::string& l : lines.answers) out << item << l << '\n';
}

std::string CsvNum(std::optional<double> v) {
  return v ? fmt::format("{}", *v) : "";
}

}  // namespace

void WriteStudyText(std::ostream& out, const Summary& s, TextStyle style) {
  Header(out, s, style);
  Heading(out, style, "findings");
  for (const std::string& f : StudyFindings(s)) {
    out << (style == TextStyle::kMarkdown ? "- " : "  ") << f << '\n';
  }
  StopSection(out, s, style);
  for (Phase phase : kAllPhases) PhaseTable(out, s, style, phase);
  CostTable(out, s, style);
  CpuSections(out, s, style);
  RoundTripTable(out, s, style);
  Titled(out, SiteTable(s), style);
  Titled(out, VarianceTable(s), style);
  Problems(out, s, style);
}

void WriteStudyCsv(std::ostream& out, const Summary& s) {
  // Fixed columns whatever the data (STYLE.md): the factors go into one "factors" cell.
  out << "arm,label,factors,status,phase,count,min_us,mean_us,p50_us,p95_us,p99_us,max_us,"
         "p50_lo_us,p50_hi_us,p99_lo_us,p99_hi_us,trials_valid,trials_done\n";
  for (const ArmSummary& a : s.arms) {
    std::string factors;
    for (const auto& [k, v] : a.factors.items()) {
      factors += fmt::format("{}{}={}", factors.empty() ? "" : ";", k, a.FactorText(k));
    }
    const std::string head = fmt::format("{},{},{},{}", a.id, CsvField(a.label), CsvField(factors),
                                         ArmOutcomeName(a.status));
    const std::string tail = fmt::format(",{},{}", a.trials.valid, a.trials.done);
    bool any = false;
    for (Phase phase : kAllPhases) {
      const PhaseSummary* p = a.phase(phase);
      if (p == nullptr) continue;
      any = true;
      out << head << ',' << PhaseName(phase) << ',' << p->count;
      for (std::optional<double> v : {p->min, p->mean, p->p50, p->p95, p->p99, p->max}) {
        out << ',' << CsvNum(v);
      }
      for (const Bounds& ci : {p->ci.p50, p->ci.p99}) {
        out << ',' << CsvNum(ci.lo) << ',' << CsvNum(ci.hi);
      }
      out << tail << '\n';
    }
    if (!any) out << head << ",,,,,,,,,,,," << tail << '\n';
  }
}

}  // namespace pqc::report
