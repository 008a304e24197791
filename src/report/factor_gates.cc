#include "report/factor_gates.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "report/comparison_phase.h"

namespace pqc::report {
namespace {

constexpr std::array<Statistic, 4> kStatistics = {Statistic::kMean, Statistic::kP50,
                                                  Statistic::kP95, Statistic::kP99};

const ArmSummary* ArmById(const Summary& s, uint64_t id) {
  for (const ArmSummary& a : s.arms) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

std::optional<double> BaselineOf(const Summary& s, const Comparison& c, Phase phase,
                                 Statistic stat) {
  const ArmSummary* a = ArmById(s, c.baseline);
  if (a == nullptr || a->phase(phase) == nullptr) return std::nullopt;
  PhaseSummary p = *a->phase(phase);
  return OfStatistic(p, stat);
}

std::string Us(std::optional<double> v, bool sign) {
  if (!v) return "–";
  return sign ? fmt::format("{:+.1f} µs", *v) : fmt::format("{:.1f} µs", *v);
}

}  // namespace

bool FactorVerdict::any_failed() const {
  return std::any_of(lines.begin(), lines.end(),
                     [](const FactorLine& l) { return !l.failed.empty(); });
}

bool FactorVerdict::any_cannot_judge() const {
  return std::any_of(lines.begin(), lines.end(),
                     [](const FactorLine& l) { return !l.cannot_judge.empty(); });
}

Result<FactorVerdict> JudgeFactor(const Summary& summary, std::string_view factor,
                                  const std::vector<Gate>& gates) {
  if (std::find(summary.factors.begin(), summary.factors.end(), factor) == summary.factors.end()) {
    return MakeError(
        ErrorKind::kUsage,
        fmt::format("--factor {}: not a factor that varies between the run's arms "
                    "({})",
                    factor,
                    summary.factors.empty()
                        ? std::string("the run has one arm, or no matrix")
                        : fmt::format("its factors: {}", fmt::join(summary.factors, ", "))));
  }
  FactorVerdict v{.factor = std::string(factor), .lines = {}};
  for (const Comparison& c : summary.comparisons) {
    if (c.factor != factor) continue;
    const std::optional<Phase> phase = ComparisonPhase(c);
    if (!phase) continue;
    for (Statistic stat : kStatistics) {
      std::vector<const Gate*> judging;
      for (const Gate& g : gates) {
        if (g.phase == *phase && g.statistic == stat) judging.push_back(&g);
      }
      // Without gates, the medians and the tails of every phase; with them, what they judge.
      if (gates.empty() ? stat != Statistic::kP50 && stat != Statistic::kP99 : judging.empty()) {
        continue;
      }
      const ArmSummary* other = ArmById(summary, c.arm);
      FactorLine line{.from = c.from,
                      .to = c.to,
                      .arm = other != nullptr ? other->label : c.to,
                      .phase = *phase,
                      .statistic = stat,
                      .difference = OfStatistic(c.diffs, stat),
                      .baseline_us = BaselineOf(summary, c, *phase, stat),
                      .control = c.control,
                      .failed = {},
                      .cannot_judge = {}};
      const Difference& d = line.difference;
      for (const Gate* g : judging) {
        if (GateFails(*g, d.lo, d.hi, line.baseline_us)) {
          line.failed.push_back(g->text);
        } else if (GateCannotJudge(*g, d.estimate, d.lo, d.hi, line.baseline_us)) {
          line.cannot_judge.push_back(g->text);
        }
      }
      v.lines.push_back(std::move(line));
    }
  }
  if (v.lines.empty()) {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("--factor {}: the run holds no comparison along it{} (an arm "
                                 "failed, or every trial of one was invalid)",
                                 factor, gates.empty() ? "" : " for these gates' phases"));
  }
  return v;
}

std::string FactorVerdictText(const FactorVerdict& verdict) {
  std::string out = fmt::format(
      "{} — each value against the first, paired by block over the run's trials\n", verdict.factor);
  for (const FactorLine& l : verdict.lines) {
    const Difference& d = l.difference;
    std::string relative;
    if (d.estimate && l.baseline_us && *l.baseline_us > 0) {
      relative = fmt::format(" ({:+.1f} %)", *d.estimate / *l.baseline_us * 100);
    }
    std::string interval = d.lo && d.hi ? fmt::format(" [{:.1f}, {:.1f}]", *d.lo, *d.hi) : "";
    std::string judged;
    for (const std::string& g : l.failed) judged += fmt::format("  FAILS '{}'", g);
    for (const std::string& g : l.cannot_judge) judged += fmt::format("  CANNOT JUDGE '{}'", g);
    fmt::format_to(std::back_inserter(out), "  {:<9} {:<4}  {} − {}{}  {}{}{}  {}{}\n",
                   PhaseName(l.phase), StatisticName(l.statistic), l.to, l.from,
                   l.arm != l.to ? " (" + l.arm + ")" : "", Us(d.estimate, true), interval,
                   relative, d.verdict, l.control ? "  (control: identical settings)" : "");
    if (!judged.empty()) out += "   " + judged + "\n";
  }
  return out;
}

}  // namespace pqc::report
