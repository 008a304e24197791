#include "report/gate.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "core/units.h"

namespace pqc::report {
namespace {

constexpr std::string_view kValid =
    "PHASE.STATISTIC > THRESHOLD, e.g. 'handshake.p99 > +5%' or 'connect.p50 > +1ms'; phases: "
    "connect, handshake, ttfb, response, total; statistics: mean, p50, p95, p99; thresholds: a "
    "percentage of the baseline or a duration (ns, us, ms, s)";

Error Bad(std::string_view text, std::string_view what) {
  return MakeError(ErrorKind::kUsage,
                   fmt::format("--fail-if '{}': {} (valid: {})", text, what, kValid));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

Result<Gate> ParseGate(std::string_view text) {
  Gate g;
  g.text = std::string(text);
  const size_t op = text.find_first_of("<>");
  if (op == std::string_view::npos) return Bad(text, "no '>' or '<'");
  g.above = text[op] == '>';
  const std::string_view lhs = Trim(text.substr(0, op));
  std::string_view rhs = Trim(text.substr(op + 1));
  const size_t dot = lhs.find('.');
  if (dot == std::string_view::npos)
    return Bad(text, fmt::format("'{}' is not PHASE.STATISTIC", lhs));
  const std::string_view phase = lhs.substr(0, dot), stat = lhs.substr(dot + 1);
  bool found = false;
  for (Phase p : kAllPhases) {
    if (PhaseName(p) == phase) {
      g.phase = p;
      found = true;
    }
  }
  if (!found) return Bad(text, fmt::format("unknown phase '{}'", phase));
  found = false;
  for (Statistic s : {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99}) {
    if (StatisticName(s) == stat) {
      g.statistic = s;
      found = true;
    }
  }
  if (!found) return Bad(text, fmt::format("unknown statistic '{}'", stat));
  if (rhs.empty()) return Bad(text, "no threshold");
  double sign = 1;
  if (rhs.front() == '+' || rhs.front() == '-') {
    sign = rhs.front() == '-' ? -1 : 1;
    rhs.remove_prefix(1);
  }
  if (!rhs.empty() && rhs.back() == '%') {
    double v = 0;
    const std::string_view number = rhs.substr(0, rhs.size() - 1);
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(v) ||
        number.empty()) {
      return Bad(text, fmt::format("'{}' is not a percentage", rhs));
    }
    g.relative = true;
    g.threshold = sign * v;
  } else {
    auto d = ParseDuration(rhs);
    if (!d) return Bad(text, d.error().message);
    g.threshold = sign * static_cast<double>(*d) / 1e3;
  }
  // A gate that cannot be crossed in its own direction would pass or fail regardless of the
  // data: '> -5%' fails on any detectable no-change, '< +5%' likewise.
  if ((g.above && g.threshold < 0) || (!g.above && g.threshold > 0)) {
    return Bad(text, g.above ? "'>' needs a threshold ≥ 0 (a slowdown)"
                             : "'<' needs a threshold ≤ 0 (a speed-up)");
  }
  return g;
}

std::optional<double> GateThresholdUs(const Gate& gate, std::optional<double> baseline_us) {
  if (!gate.relative) return gate.threshold;
  // A share of a baseline that is not a positive latency is no threshold at all.
  if (!baseline_us || !std::isfinite(*baseline_us) || *baseline_us <= 0) return std::nullopt;
  return *baseline_us * gate.threshold / 100;
}

bool GateFails(const Gate& gate, std::optional<double> lo, std::optional<double> hi,
               std::optional<double> baseline_us) {
  const std::optional<double> threshold = GateThresholdUs(gate, baseline_us);
  if (!threshold) return false;
  if (gate.above) return lo && std::isfinite(*lo) && *lo > *threshold;
  return hi && std::isfinite(*hi) && *hi < *threshold;
}

bool GateCannotJudge(const Gate& gate, std::optional<double> estimate, std::optional<double> lo,
                     std::optional<double> hi, std::optional<double> baseline_us) {
  if (!GateThresholdUs(gate, baseline_us) || !estimate || !std::isfinite(*estimate)) return false;
  return !lo || !hi || !std::isfinite(*lo) || !std::isfinite(*hi);
}

}  // namespace pqc::report
