#include "report/text_report.h"

#include <fmt/format.h>

#include <cmath>

#include "core/csv.h"
#include "core/slow_start.h"
#include "report/cpu_tables.h"
#include "core/text_table.h"

namespace pqc::report {
namespace {

using nlohmann::ordered_json;
constexpr std::array<const char*, 5> kPhases = {"connect", "handshake", "ttfb", "response",
                                                "total"};

double Get(const ordered_json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return NAN;
  return j[key].get<double>();
}

// Ms: µs → "0.890" ms with microsecond precision; "-" when undefined.
std::string Ms(double us) {
  return std::isfinite(us) ? fmt::format("{:.3f}", us / 1000.0) : "-";
}
std::string Bytes(double b) {
  return std::isfinite(b) ? fmt::format("{:.0f}", b) : "-";
}

// Overhead: the comparison of `arm` against its baseline in the first varying factor, for
// one phase and statistic ("" when the arm is a baseline or has none).
std::string Overhead(const ordered_json& s, uint64_t arm, const char* phase, const char* stat) {
  for (const auto& c : s["comparisons"]) {
    if (c["arm"] != arm || c["phase"] != phase) continue;
    if (!s["factors"].empty() && c["factor"] != s["factors"][0]) continue;
    return fmt::format("{} (vs {}){}", c["diffs"][stat]["verdict"].get<std::string>(),
                       c["from"].get<std::string>(),
                       c.value("from_invalid_trials", false) ? " INVALID DATA" : "");
  }
  return "";
}

// Label: the arm's name, marked when its numbers come from invalid trials only.
std::string Label(const ordered_json& a) {
  return a["label"].get<std::string>() +
         (a.value("from_invalid_trials", false) ? " (INVALID)" : "");
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

void Header(std::ostream& out, const ordered_json& s, TextStyle style) {
  const ordered_json& r = s["run"];
  out << (style == TextStyle::kMarkdown ? "# " : "") << r["title"].get<std::string>() << '\n';
  if (style == TextStyle::kMarkdown) out << '\n';
  out << fmt::format(
      "{} · {} of {} trials · target {} · {} · {} ({} cores) · {} · pqc-bench {} ({})\n",
      r["complete"].get<bool>() ? "complete" : "INCOMPLETE (interrupted; run --resume DIR)",
      r["trials_done"].get<uint64_t>(), r["trials_planned"].get<uint64_t>(),
      r["target"].get<std::string>(), r["openssl_version"].get<std::string>(),
      r["cpu_model"].get<std::string>(), r["cores"].get<uint64_t>(), r["kernel"].get<std::string>(),
      r["tool_version"].get<std::string>(), r["git_commit"].get<std::string>());
  out << fmt::format(
      "started {}{}; latencies in ms; intervals: {:.0f} % bootstrap over the "
      "valid trials' connections\n",
      r["started"].get<std::string>(),
      r["ended"].is_string() ? ", ended " + r["ended"].get<std::string>() : "",
      r["confidence"].get<double>() * 100);
}

void PhaseTable(std::ostream& out, const ordered_json& s, TextStyle style, const char* phase) {
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
  for (const auto& a : s["arms"]) {
    if (!a["phases"].contains(phase)) continue;
    const ordered_json& p = a["phases"][phase];
    const uint64_t id = a["id"].get<uint64_t>();
    t.rows.push_back({Label(a),
                      fmt::format("{}/{}", a["trials"]["valid"].get<uint64_t>(),
                                  a["trials"]["done"].get<uint64_t>()),
                      fmt::format("{}", p["count"].get<uint64_t>()), Ms(Get(p, "min")),
                      Ms(Get(p, "mean")), Ms(Get(p, "p50")), Ms(Get(p, "p95")), Ms(Get(p, "p99")),
                      Ms(Get(p, "max")), Overhead(s, id, phase, "p50"),
                      Overhead(s, id, phase, "p99")});
  }
  if (t.rows.empty()) return;
  Heading(out, style, fmt::format("{} (ms)", phase));
  Print(out, style, t);
}

void CostTable(std::ostream& out, const ordered_json& s, TextStyle style) {
  Table t;
  t.headers = {"arm", "ClientHello B", "Certificate B", "CertVerify B", "server flight B"};
  t.right = {false, true, true, true, true};
  for (const auto& a : s["arms"]) {
    if (a["status"] == "failed") continue;
    const ordered_json& b = a["bytes"];
    t.rows.push_back({Label(a), Bytes(Get(b, "client_hello")), Bytes(Get(b, "certificate")),
                      Bytes(Get(b, "certificate_verify")), Bytes(Get(b, "server_first_flight"))});
  }
  if (t.rows.empty()) return;
  Heading(out, style, "bytes on the wire (means)");
  Print(out, style, t);
}

// RoundTripTable: for arms on an emulated network, the handshake in round trips next to what
// the server's first flight predicts under slow start (core/slow_start.h): the initial window
// is 10 segments and doubles each round trip while nothing is lost, so a flight of up to 10
// segments takes 1 round trip, up to 30 takes 2, up to 70 takes 3. Segments, not bytes,
// decide: a server writing its flight in pieces fills some segments partly (measured at the
// client), so bytes below 14,600 can still overflow. Below 20 ms of RTT the handshake's CPU
// time is a large part of it, so no count is claimed there.
void RoundTripTable(std::ostream& out, const ordered_json& s, TextStyle style) {
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
  for (const auto& a : s["arms"]) {
    const double rtt =
        a.contains("rtt_ms") && a["rtt_ms"].is_number() ? a["rtt_ms"].get<double>() : NAN;
    if (a["status"] == "failed" || !std::isfinite(rtt) || rtt <= 0 ||
        !a["phases"].contains("handshake")) {
      continue;
    }
    const double p50_us = Get(a["phases"]["handshake"], "p50");
    const double flight = Get(a["bytes"], "server_first_flight");
    const double segments = Get(a["bytes"], "server_first_flight_segments");
    const bool counted = rtt >= kMinRttMs && std::isfinite(p50_us);
    const double rtts = p50_us / 1000.0 / rtt;
    long expected_rtts = 0;
    std::string expected = "-";
    if (std::isfinite(segments)) {
      expected_rtts = SlowStartRoundTrips(segments);
      expected = expected_rtts == 1 ? "1 (fits)"
                                    : fmt::format("{} (slow start: {} segments)", expected_rtts,
                                                  std::ceil(segments));
    }
    std::string measured = "-";
    if (counted) {
      const long n = std::lround(rtts);
      measured = fmt::format("{}", n);
      if (expected_rtts != 0 && n != expected_rtts) measured += " UNEXPECTED";
    }
    t.rows.push_back({Label(a), fmt::format("{:g}", rtt), Ms(p50_us),
                      counted ? fmt::format("{:.2f}", rtts) : "-", Bytes(flight),
                      std::isfinite(segments) ? fmt::format("{:.1f}", segments) : "-", expected,
                      measured});
  }
  if (t.rows.empty()) return;
  Heading(out, style,
          "round trips of the fresh handshake (initial window 10 segments, doubling each round "
          "trip without loss: up to 10, 30, 70 segments in 1, 2, 3; counted from 20 ms of RTT)");
  Print(out, style, t);
}

// CpuSections: measured CPU vs the crypto floor, and the capacity view (cpu_tables.h).
void CpuSections(std::ostream& out, const ordered_json& s, TextStyle style) {
  const nlohmann::json plain = nlohmann::json::parse(s.dump());
  for (const TitledTable& t : {FloorTable(plain), CapacityTable(plain)}) {
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

void Problems(std::ostream& out, const ordered_json& s, TextStyle style) {
  std::vector<std::string> lines;
  for (const auto& a : s["arms"]) {
    const std::string label = a["label"].get<std::string>();
    if (a["status"] == "failed") {
      lines.push_back(fmt::format("FAILED {}: {}", label, a["failure"].get<std::string>()));
    } else if (a["status"] == "invalid") {
      lines.push_back(
          fmt::format("INVALID {}: no valid trial; its numbers above come from its "
                      "invalid trials (reasons below) and are not to be trusted",
                      label));
    }
    for (const auto& o : a["outliers"]) {
      lines.push_back(fmt::format("OUTLIER {} trial {} ({} {}): {}", label,
                                  o["trial"].get<uint64_t>(), o["phase"].get<std::string>(),
                                  o["statistic"].get<std::string>(),
                                  o["reason"].get<std::string>()));
    }
  }
  for (const auto& t : s["trials"]) {
    if (t["valid"].get<bool>()) continue;
    std::string reasons;
    for (const auto& r : t["reasons"])
      reasons += (reasons.empty() ? "" : "; ") + r.get<std::string>();
    lines.push_back(fmt::format("invalid trial: arm {} block {}: {}", t["arm"].get<uint64_t>(),
                                t["block"].get<uint64_t>() + 1,
                                t["interrupted"].get<bool>() ? "interrupted" : reasons));
  }
  if (lines.empty()) return;
  Heading(out, style, "problems");
  for (const std::string& l : lines)
    out << (style == TextStyle::kMarkdown ? "- " : "  ") << l << '\n';
}

std::string CsvNum(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : "";
}

}  // namespace

void WriteStudyText(std::ostream& out, const ordered_json& s, TextStyle style) {
  Header(out, s, style);
  for (const char* phase : kPhases) PhaseTable(out, s, style, phase);
  CostTable(out, s, style);
  CpuSections(out, s, style);
  RoundTripTable(out, s, style);
  Problems(out, s, style);
}

void WriteStudyCsv(std::ostream& out, const ordered_json& s) {
  // Fixed columns whatever the data (STYLE.md): the factors go into one "factors" cell.
  out << "arm,label,factors,status,phase,count,min_us,mean_us,p50_us,p95_us,p99_us,max_us,"
         "p50_lo_us,p50_hi_us,p99_lo_us,p99_hi_us,trials_valid,trials_done\n";
  for (const auto& a : s["arms"]) {
    std::string factors;
    for (const auto& [k, v] : a["factors"].items()) {
      factors += fmt::format("{}{}={}", factors.empty() ? "" : ";", k, v.get<std::string>());
    }
    const std::string head =
        fmt::format("{},{},{},{}", a["id"].get<uint64_t>(), CsvField(a["label"].get<std::string>()),
                    CsvField(factors), a["status"].get<std::string>());
    const std::string tail = fmt::format(",{},{}", a["trials"]["valid"].get<uint64_t>(),
                                         a["trials"]["done"].get<uint64_t>());
    if (a["phases"].empty()) out << head << ",,,,,,,,,,,," << tail << '\n';
    for (const auto& [phase, p] : a["phases"].items()) {
      out << head << ',' << phase << ',' << p["count"].get<uint64_t>();
      for (const char* k : {"min", "mean", "p50", "p95", "p99", "max"})
        out << ',' << CsvNum(Get(p, k));
      for (const char* k : {"p50", "p99"}) {
        const auto& ci = p["ci"][k];
        out << ',' << (ci[0].is_number() ? CsvNum(ci[0].get<double>()) : "") << ','
            << (ci[1].is_number() ? CsvNum(ci[1].get<double>()) : "");
      }
      out << tail << '\n';
    }
  }
}

}  // namespace pqc::report
