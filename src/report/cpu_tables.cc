#include "report/cpu_tables.h"

#include <fmt/format.h>

#include "report/cell_format.h"

namespace pqc::report {
namespace {

std::string Ratio(std::optional<double> v) {
  return v ? fmt::format("{:.2f}×", *v) : "–";
}

// WithInterval: "412.3 [398.0, 426.6]", or the estimate alone when the interval is undefined.
std::string WithInterval(std::optional<double> v, const Bounds& ci, int digits) {
  std::string out = Fixed(v, digits);
  if (!ci.lo || !ci.hi) return out;
  return out + fmt::format(" [{:.{}f}, {:.{}f}]", *ci.lo, digits, *ci.hi, digits);
}

// Busy: the server's CPU share of one core over its trial ("97 %").
std::string Busy(std::optional<double> v) {
  return v ? fmt::format("{:.0f} %", *v * 100) : "–";
}

}  // namespace

TitledTable FloorTable(const Summary& summary) {
  TitledTable t;
  t.id = "cpu-floor";
  t.title = "CPU per handshake: measured vs crypto floor (µs)";
  t.note =
      "measured: the server's own rusage / its handshakes, the load generator's rusage / its "
      "connections; floor: the public-key operations of the handshake, priced by `speed` at "
      "the start of the run (resumed handshakes: key exchange only); ratio = measured / floor";
  t.table.headers = {"arm",        "server CPU",   "server floor", "server ratio",
                     "client CPU", "client floor", "client ratio"};
  t.table.right = {false, true, true, true, true, true, true};
  for (const ArmSummary& arm : summary.arms) {
    if (arm.status == ArmOutcome::kFailed) continue;
    const CpuCosts& cpu = arm.cpu;
    t.table.rows.push_back({arm.Name(), Fixed(cpu.server_us_per_handshake, 1),
                            Fixed(cpu.floor_server_us, 1), Ratio(cpu.server_floor_ratio),
                            Fixed(cpu.client_us_per_connection, 1), Fixed(cpu.floor_client_us, 1),
                            Ratio(cpu.client_floor_ratio)});
  }
  return t;
}

TitledTable CapacityTable(const Summary& summary) {
  TitledTable t;
  t.id = "capacity";
  t.title = "Server capacity: handshakes/s per server core";
  const CapacitySummary& cap = summary.capacity;
  const double confidence = cap.confidence;
  t.note = fmt::format(
      "server CPU from the server's own rusage, one value per trial (server busy: its CPU over its "
      "wall time, 100 % = one core saturated); [{:.0f} % Student t "
      "interval over trials]; handshakes/s per core = 1e6 / µs per handshake; \"vs classical\" "
      "compares with the classical arm of the same target (interval paired by block)",
      confidence * 100);
  t.table.headers = {
      "arm",      "target",  "trials",      "handshakes/s per core", "server CPU µs/handshake",
      "floor µs", "× floor", "server busy", "vs classical"};
  t.table.right = {false, false, true, true, true, true, true, true, true};
  for (const CapacityArmSummary& a : cap.arms) {
    std::string vs = "baseline";
    if (a.more_cpu_pct) {
      const std::optional<double> pct = a.more_cpu_pct->estimate;
      vs = pct ? fmt::format("{:+.0f} %", *pct) : "–";
    } else if (a.line != "classical baseline") {
      vs = "–";
    }
    t.table.rows.push_back(
        {a.label + (a.from_invalid_trials ? " (INVALID)" : ""), a.target,
         fmt::format("{}", a.trials),
         WithInterval(a.handshakes_per_core_s.estimate, a.handshakes_per_core_s.ci, 0),
         WithInterval(a.server_us_per_handshake.mean, a.server_us_per_handshake.ci, 1),
         Fixed(a.floor_server_us, 1), Ratio(a.floor_ratio), Busy(a.server_busy), vs});
    if (a.more_cpu_pct) {
      const MoreCpu& more = *a.more_cpu_pct;
      std::string interval;
      if (more.ci.lo && more.ci.hi) {
        interval = fmt::format(" ({:+.0f} % to {:+.0f} % over {} paired blocks)", *more.ci.lo,
                               *more.ci.hi, more.paired_blocks);
      }
      t.lines.push_back(fmt::format("{} [{}]: {}{} — baseline {}", a.label, a.target, a.line,
                                    interval, a.baseline_label.value_or("")));
    }
  }
  return t;
}

}  // namespace pqc::report
