#include "report/client_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/split.h"
#include "report/html_page.h"
#include "report/html_text.h"
#include "tls/client_hello.h"
#include "tls/client_record.h"

namespace pqc::report {
namespace {

bool AnyPostQuantum(const std::string& names) {
  for (std::string_view n : Split(names, ":")) {
    if (IsPostQuantumGroupName(n)) return true;
  }
  return false;
}

bool AnyMlDsa(const std::string& sigalgs) {
  for (std::string_view n : Split(sigalgs, ":")) {
    if (n.starts_with("mldsa")) return true;
  }
  return false;
}

void Count(ClientSummaryRow& c, const results::ClientLogRow& r) {
  if (c.connections == 0) {
    c.offered_groups = r.groups;
    c.key_shares = r.key_shares;
    c.sigalgs = r.sigalgs;
    c.alpn = r.alpn;
  }
  c.hello_bytes_mean += (static_cast<double>(r.hello_bytes) - c.hello_bytes_mean) /
                        static_cast<double>(c.connections + 1);
  ++c.connections;
  if (!r.fingerprint.empty() && std::find(c.fingerprints.begin(), c.fingerprints.end(),
                                          r.fingerprint) == c.fingerprints.end()) {
    c.fingerprints.push_back(r.fingerprint);
  }
  // The stored row names its outcome (results/client_log.h); parsed once, here. A name this
  // build does not know counts as failed, as the server would have recorded it.
  const ClientOutcome outcome = ParseClientOutcome(r.outcome).value_or(ClientOutcome::kFailed);
  if (outcome == ClientOutcome::kMalformed || outcome == ClientOutcome::kOversize) ++c.malformed;
  if (AnyPostQuantum(r.groups)) ++c.pq_offered;
  if (AnyPostQuantum(r.key_shares)) ++c.pq_key_share;
  if (AnyMlDsa(r.sigalgs)) ++c.mldsa_capable;
  if (r.hello_segments > 1) ++c.multi_segment;
  if (outcome != ClientOutcome::kOk) return;
  ++c.completed;
  ++c.groups[r.group];
  if (IsPostQuantumGroupName(r.group)) {
    ++c.pq_negotiated;
    if (r.hrr) ++c.pq_after_hrr;
  } else {
    ++c.classical;
  }
}

std::string Share(uint64_t part, uint64_t whole) {
  if (whole == 0) return "–";
  return fmt::format("{:.1f} %", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string Groups(const ClientSummaryRow& c) {
  std::string out;
  for (const auto& [g, n] : c.groups) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", g, n);
  return out;
}

Table MakeTable(const ClientSummary& s) {
  Table t;
  t.headers = {"client",        "connections", "completed", "PQ key share",
               "PQ via HRR",    "classical",   "failed",    "ML-DSA capable",
               "ClientHello B", "> 1 segment", "negotiated"};
  t.right = {false, true, true, true, true, true, true, true, true, true, false};
  auto row = [&t](const ClientSummaryRow& c, const std::string& name) {
    t.rows.push_back(
        {name, std::to_string(c.connections), std::to_string(c.completed),
         Share(c.pq_key_share, c.connections), Share(c.pq_after_hrr, c.connections),
         Share(c.classical, c.connections), Share(c.connections - c.completed, c.connections),
         Share(c.mldsa_capable, c.connections), fmt::format("{:.0f}", c.hello_bytes_mean),
         Share(c.multi_segment, c.connections), Groups(c)});
  };
  for (const ClientSummaryRow& c : s.clients) row(c, c.client);
  if (s.clients.size() > 1) row(s.all, "all clients");
  return t;
}

constexpr const char* kBasis =
    "per client (User-Agent of the first request, else the ClientHello fingerprint); shares of "
    "its connections: PQ key share = its first ClientHello carried a hybrid or post-quantum key "
    "share; PQ via HRR = completed on such a group only after a HelloRetryRequest; classical = "
    "completed on a classical group; ML-DSA capable = offered an ML-DSA signature scheme; "
    "> 1 segment = the ClientHello arrived in more than one TCP data segment";

nlohmann::json RowJson(const ClientSummaryRow& c) {
  return {{"client", c.client},
          {"fingerprints", c.fingerprints},
          {"connections", c.connections},
          {"completed", c.completed},
          {"pq_offered", c.pq_offered},
          {"pq_key_share", c.pq_key_share},
          {"pq_after_hrr", c.pq_after_hrr},
          {"pq_negotiated", c.pq_negotiated},
          {"classical", c.classical},
          {"failed", c.connections - c.completed},
          {"malformed", c.malformed},
          {"mldsa_capable", c.mldsa_capable},
          {"multi_segment", c.multi_segment},
          {"client_hello_bytes_mean", c.hello_bytes_mean},
          {"negotiated_groups", c.groups},
          {"offered",
           {{"groups", c.offered_groups},
            {"key_shares", c.key_shares},
            {"sigalgs", c.sigalgs},
            {"alpn", c.alpn}}}};
}

}  // namespace

ClientSummary SummarizeClients(const std::vector<results::ClientLogRow>& rows, std::string file) {
  ClientSummary s;
  s.file = std::move(file);
  std::map<std::string, ClientSummaryRow> by;
  for (const results::ClientLogRow& r : rows) {
    std::string key = !r.user_agent.empty()    ? r.user_agent
                      : !r.fingerprint.empty() ? "fingerprint " + r.fingerprint
                                               : "unparsed ClientHello";
    ClientSummaryRow& c = by[key];
    c.client = key;
    Count(c, r);
    Count(s.all, r);
  }
  s.all.client = "all clients";
  for (auto& [key, c] : by) s.clients.push_back(std::move(c));
  std::stable_sort(s.clients.begin(), s.clients.end(),
                   [](const auto& a, const auto& b) { return a.connections > b.connections; });
  return s;
}

nlohmann::json ClientSummaryJson(const ClientSummary& s) {
  nlohmann::json clients = nlohmann::json::array();
  for (const ClientSummaryRow& c : s.clients) clients.push_back(RowJson(c));
  return {{"file", s.file}, {"basis", kBasis}, {"all", RowJson(s.all)}, {"clients", clients}};
}

void WriteClientSummaryTable(std::ostream& out, const ClientSummary& s, bool markdown) {
  out << fmt::format("{}: {} connections from {} clients\n\n", s.file, s.all.connections,
                     s.clients.size());
  const Table t = MakeTable(s);
  if (markdown) {
    WriteMarkdownTable(out, t);
  } else {
    WriteTextTable(out, t);
  }
  out << "\n" << kBasis << "\n";
}

void WriteClientSummaryHtml(std::ostream& out, const ClientSummary& s) {
  WritePageHead(out, "What clients offer");
  out << "<p>"
      << HtmlEscape(fmt::format("{}: {} connections from {} clients", s.file, s.all.connections,
                                s.clients.size()))
      << "</p>\n";
  // One bar per client, split into what its connections got (exclusive categories).
  nlohmann::json values = nlohmann::json::array();
  for (const ClientSummaryRow& c : s.clients) {
    const std::pair<const char*, uint64_t> parts[] = {
        {"PQ key share at once", c.pq_negotiated - c.pq_after_hrr},
        {"PQ after HelloRetryRequest", c.pq_after_hrr},
        {"classical", c.classical},
        {"failed", c.connections - c.completed}};
    for (const auto& [what, n] : parts) {
      values.push_back({{"client", c.client},
                        {"outcome", what},
                        {"share", static_cast<double>(n) / static_cast<double>(c.connections)},
                        {"connections", n}});
    }
  }
  nlohmann::json spec = {
      {"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
      {"width", 640},
      {"data", {{"values", values}}},
      {"mark", "bar"},
      {"encoding",
       {{"y", {{"field", "client"}, {"type", "nominal"}, {"title", nullptr}}},
        {"x",
         {{"field", "share"},
          {"type", "quantitative"},
          {"stack", "normalize"},
          {"axis", {{"format", "%"}}},
          {"title", "share of the client's connections"}}},
        {"color",
         {{"field", "outcome"},
          {"type", "nominal"},
          {"sort", {"PQ key share at once", "PQ after HelloRetryRequest", "classical", "failed"}}}},
        {"tooltip", {{{"field", "client"}}, {{"field", "outcome"}}, {{"field", "connections"}}}}}}};
  out << "<h2>Key exchange by client</h2>\n<div id=\"clients-chart\" class=\"chart\"></div>\n";
  out << "<h2>Clients</h2>\n";
  WriteHtmlTable(out, MakeTable(s), "clients");
  out << "<p class=\"basis\">" << HtmlEscape(kBasis) << "</p>\n";
  out << "<h2>What each client offered (its first connection)</h2>\n";
  Table offered;
  offered.headers = {"client", "groups", "key shares", "signature algorithms", "ALPN"};
  offered.right = {false, false, false, false, false};
  for (const ClientSummaryRow& c : s.clients) {
    offered.rows.push_back({c.client, c.offered_groups, c.key_shares, c.sigalgs, c.alpn});
  }
  WriteHtmlTable(out, offered, "offered");
  WritePageEnd(out, {{"clients-chart", spec}});
}

}  // namespace pqc::report
