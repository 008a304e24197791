#include "count/count_gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "count/count_report.h"

namespace pqc::count {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::string StageIds() {
  std::string out = "instructions";
  for (const StageInfo& s : Stages()) out += fmt::format(", {}", s.id);
  return out;
}

}  // namespace

Result<CountGate> ParseCountGate(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--fail-if '{}': {} (valid: SIDE.WHAT > +1% or < -5% or > "
                                 "+20000 — SIDE client or server, WHAT one of {})",
                                 text, why, StageIds()));
  };
  CountGate g;
  g.text = std::string(text);
  const size_t op = text.find_first_of("<>");
  if (op == std::string_view::npos) return bad("no '>' or '<'");
  g.above = text[op] == '>';
  const std::string_view lhs = Trim(text.substr(0, op));
  std::string_view rhs = Trim(text.substr(op + 1));
  const size_t dot = lhs.find('.');
  if (dot == std::string_view::npos) return bad("expected SIDE.WHAT before the operator");
  g.side = std::string(lhs.substr(0, dot));
  if (g.side != "client" && g.side != "server") {
    return bad(fmt::format("unknown side '{}'", g.side));
  }
  const std::string_view what = lhs.substr(dot + 1);
  if (what != "instructions") {
    g.stage = ParseStageId(what);
    if (!g.stage) return bad(fmt::format("unknown stage '{}'", what));
  }
  if (!rhs.empty() && rhs.back() == '%') {
    g.relative = true;
    rhs.remove_suffix(1);
  }
  if (!rhs.empty() && rhs.front() == '+' && rhs.size() > 1 && rhs[1] != '-') rhs.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(rhs.data(), rhs.data() + rhs.size(), v);
  if (rhs.empty() || ec != std::errc() || end != rhs.data() + rhs.size() || !std::isfinite(v)) {
    return bad(fmt::format("'{}' is not a number", rhs));
  }
  // A gate that fails with no difference at all would fail every build: '>' takes a threshold
  // of 0 or more, '<' of 0 or less.
  if (g.above ? v < 0 : v > 0) {
    return bad(fmt::format("'{}' {} a threshold of {}: the gate would fail with no difference",
                           text[op], g.above ? "with" : "with", v));
  }
  g.threshold = v;
  return g;
}

CountDifference Differ(const std::vector<double>& base, const std::vector<double>& other) {
  CountDifference d;
  d.base = Mean(base);
  d.other = Mean(other);
  if (base.empty() || other.empty()) return d;
  const auto [blo, bhi] = std::minmax_element(base.begin(), base.end());
  const auto [olo, ohi] = std::minmax_element(other.begin(), other.end());
  d.lo = *olo - *bhi;
  d.hi = *ohi - *blo;
  return d;
}

bool CountGateFails(const CountGate& gate, const CountDifference& d) {
  const double threshold = gate.relative ? gate.threshold / 100 * d.base : gate.threshold;
  return gate.above ? d.lo > threshold : d.hi < threshold;
}

}  // namespace pqc::count
