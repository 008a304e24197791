#include "report/capacity.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "stats/ratio_jackknife.h"
#include "stats/student_t.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"

namespace pqc::report {
namespace {

double UsPerHandshake(const CapacityTrial& t) {
  return t.server_handshakes > 0 ? t.server_cpu_s * 1e6 / static_cast<double>(t.server_handshakes)
                                 : NAN;
}

std::vector<double> PerTrial(const CapacityArm& a) {
  std::vector<double> v;
  for (const CapacityTrial& t : a.trials) v.push_back(UsPerHandshake(t));
  return v;
}

// BlockValues: the arm's CPU per handshake, one value per trial with its block.
std::vector<BlockValue> BlockValues(const CapacityArm& a) {
  std::vector<BlockValue> out;
  for (const CapacityTrial& t : a.trials) out.push_back({t.block, UsPerHandshake(t)});
  return out;
}

// PairedBlocks: the blocks in which both arms have a value.
int64_t PairedBlocks(const std::vector<BlockValue>& a, const std::vector<BlockValue>& b) {
  std::map<uint64_t, int> seen;
  for (const BlockValue& v : a) {
    if (std::isfinite(v.value)) seen[v.block] |= 1;
  }
  for (const BlockValue& v : b) {
    if (std::isfinite(v.value)) seen[v.block] |= 2;
  }
  int64_t n = 0;
  for (const auto& [block, mask] : seen) n += mask == 3 ? 1 : 0;
  return n;
}

// FloorVariance: what one trial's CPU per handshake is known to at best: rusage counts whole
// µs, so a trial's CPU total is rounded to ±0.5 µs (variance 1/12 µs²), spread over its
// handshakes (the fewest of any trial: the coarsest). Tiny, never zero.
double FloorVariance(const CapacityArm& a, const CapacityArm& b) {
  uint64_t fewest = 0;
  for (const CapacityArm* arm : {&a, &b}) {
    for (const CapacityTrial& t : arm->trials) {
      if (t.server_handshakes > 0 && (fewest == 0 || t.server_handshakes < fewest)) {
        fewest = t.server_handshakes;
      }
    }
  }
  const double h = fewest > 0 ? static_cast<double>(fewest) : 1.0;
  return 1.0 / 12 / (h * h);
}

std::string Line(double pct) {
  if (!std::isfinite(pct)) return "no server CPU measured";
  const double rounded = std::round(pct);
  if (rounded == 0) return "the same server CPU per handshake as classical (within 0.5 %)";
  return fmt::format("{:.0f} % {} server CPU per handshake than classical", std::fabs(pct),
                     pct > 0 ? "more" : "less");
}

}  // namespace

bool IsClassical(const std::string& group, const std::string& chain) {
  auto g = FindGroup(group);
  if (!g || (*g)->family != GroupFamily::kClassical) return false;
  auto c = ParseChainSpec(chain);
  if (!c) return false;
  for (const SignatureInfo* s : c->links) {
    if (s->family == SignatureFamily::kMlDsa || s->family == SignatureFamily::kSlhDsa) return false;
  }
  return true;
}

std::optional<size_t> BaselineOf(const std::vector<CapacityArm>& arms, size_t i) {
  for (size_t j = 0; j < arms.size(); ++j) {
    const CapacityArm& c = arms[j];
    if (c.failed || c.target != arms[i].target || c.other_factors != arms[i].other_factors) {
      continue;
    }
    if (!IsClassical(c.group, c.chain)) continue;
    if (j == i) return std::nullopt;
    return j;
  }
  return std::nullopt;
}

CapacitySummary CapacityOf(const std::vector<CapacityArm>& arms, double confidence) {
  CapacitySummary doc;
  doc.basis =
      "one value per trial: the server process tree's own CPU (rusage user + sys) divided by "
      "the handshakes it completed in that trial (nginx and HAProxy count none: the client's "
      "completed "
      "handshakes, warm-up included like the CPU); mean over trials, Student t interval over "
      "trials; handshakes/s per core = 1e6 / that mean; more CPU than classical = the ratio of the "
      "two arms' means − 1, its interval the jackknife of that ratio over blocks";
  doc.confidence = confidence;
  std::vector<MeanInterval> cpu(arms.size());
  for (size_t i = 0; i < arms.size(); ++i) {
    const std::vector<double> v = PerTrial(arms[i]);
    cpu[i] = TInterval(v, confidence);
  }
  for (size_t i = 0; i < arms.size(); ++i) {
    const CapacityArm& a = arms[i];
    if (a.failed) continue;
    const MeanInterval& m = cpu[i];
    CapacityArmSummary& out = doc.arms.emplace_back();
    out.arm = a.id;
    out.label = a.label;
    out.target = a.target;
    out.trials = m.n;
    out.from_invalid_trials = a.from_invalid;
    for (double v : PerTrial(a)) out.server_us_per_handshake.per_trial.push_back(Finite(v));
    out.server_us_per_handshake.mean = Finite(m.n > 0 ? m.mean : NAN);
    out.server_us_per_handshake.ci = FiniteBounds(m.lo, m.hi);
    // 1e6/x falls as x rises: the interval's ends swap.
    out.handshakes_per_core_s = {
        Finite(m.n > 0 && m.mean > 0 ? 1e6 / m.mean : NAN),
        FiniteBounds(m.hi > 0 ? 1e6 / m.hi : NAN, m.lo > 0 ? 1e6 / m.lo : NAN)};
    double busy = 0;
    int busy_n = 0;
    for (const CapacityTrial& t : a.trials) {
      if (t.server_wall_s > 0) {
        busy += t.server_cpu_s / t.server_wall_s;
        ++busy_n;
      }
    }
    out.server_busy = Finite(busy_n > 0 ? busy / busy_n : NAN);
    const double floor = a.floor_server_us ? *a.floor_server_us : NAN;
    out.floor_server_us = Finite(floor);
    out.floor_ratio = Finite(m.n > 0 && floor > 0 ? m.mean / floor : NAN);
    const std::optional<size_t> base = BaselineOf(arms, i);
    if (base) {
      out.baseline = arms[*base].id;
      out.baseline_label = arms[*base].label;
      // The ratio of the arms' means, its interval the jackknife of that same ratio over blocks
      // (ratio_jackknife.h): the printed number is always inside its interval.
      const std::vector<BlockValue> vb = BlockValues(arms[*base]), va = BlockValues(a);
      const UnitInterval r = RatioOfMeans(vb, va, FloorVariance(a, arms[*base]), confidence);
      const double pct = (r.interval.estimate - 1) * 100;
      out.more_cpu_pct =
          MoreCpu{Finite(pct), FiniteBounds((r.interval.lo - 1) * 100, (r.interval.hi - 1) * 100),
                  PairedBlocks(va, vb)};
      out.line = Line(pct);
    } else {
      out.line = IsClassical(a.group, a.chain) ? "classical baseline" : "no classical baseline";
    }
  }
  return doc;
}

}  // namespace pqc::report
