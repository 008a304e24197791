#include "report/site_table.h"

#include <fmt/format.h>

#include "report/cell_format.h"

namespace pqc::report {
namespace {

std::string Ms(const std::optional<SitePhase>& p, std::optional<double> SitePhase::*statistic) {
  return report::Ms(p ? (*p).*statistic : std::nullopt);
}

std::string RoundTrips(std::optional<double> v) {
  return Fixed(v, 2);
}

}  // namespace

TitledTable SiteTable(const Summary& summary) {
  TitledTable out;
  out.id = "sites";
  out.title = "by client site";
  out.note =
      "One trial loads the target from every site at once, each with an equal share of the "
      "arm's connections; the tables above pool them. A fresh TLS 1.3 handshake whose server "
      "flight fits the initial window takes 1 round trip, as does TCP's connect; near 1 ms of "
      "RTT the handshake's CPU time dominates the count.";
  Table& t = out.table;
  t.headers = {"arm",           "site",    "RTT ms",        "connections", "connect p50", "in RTTs",
               "handshake p50", "in RTTs", "handshake p99", "ttfb p50",    "errors"};
  t.right = {false, false, true, true, true, true, true, true, true, true, true};
  for (const ArmSummary& a : summary.arms) {
    if (a.status == ArmOutcome::kFailed) continue;
    const std::string label = a.label + (a.from_invalid_trials ? " (INVALID)" : "");
    for (const SiteSummary& site : a.sites) {
      t.rows.push_back({label, site.name,
                        site.rtt_ms ? fmt::format("{:g}", *site.rtt_ms) : std::string(kMissing),
                        fmt::format("{}", site.connections), Ms(site.connect, &SitePhase::p50),
                        RoundTrips(site.connect_round_trips), Ms(site.handshake, &SitePhase::p50),
                        RoundTrips(site.handshake_round_trips), Ms(site.handshake, &SitePhase::p99),
                        Ms(site.ttfb, &SitePhase::p50), fmt::format("{}", site.errors)});
    }
  }
  return out;
}

}  // namespace pqc::report
