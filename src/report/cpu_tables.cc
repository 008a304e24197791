#include "report/cpu_tables.h"

#include <fmt/format.h>

#include "report/summary_fields.h"

namespace pqc::report {
namespace {

using nlohmann::json;

std::string Fixed(std::optional<double> v, int digits) {
  return v ? fmt::format("{:.{}f}", *v, digits) : "–";
}

std::string Ratio(std::optional<double> v) {
  return v ? fmt::format("{:.2f}×", *v) : "–";
}

// WithInterval: "412.3 [398.0, 426.6]", or the estimate alone when the interval is undefined.
std::string WithInterval(std::optional<double> v, const json* ci, int digits) {
  std::string out = Fixed(v, digits);
  if (ci == nullptr || !ci->is_array() || ci->size() != 2 || !(*ci)[0].is_number() ||
      !(*ci)[1].is_number()) {
    return out;
  }
  return out + fmt::format(" [{:.{}f}, {:.{}f}]", (*ci)[0].get<double>(), digits,
                           (*ci)[1].get<double>(), digits);
}

// Busy: the server's CPU share of one core over its trial ("97 %").
std::string Busy(std::optional<double> v) {
  return v ? fmt::format("{:.0f} %", *v * 100) : "–";
}

}  // namespace

TitledTable FloorTable(const json& summary) {
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
  for (const json* arm : Items(summary, "arms")) {
    if (Text(*arm, "status") == "failed") continue;
    const json* cpu = Field(*arm, "cpu");
    if (cpu == nullptr) continue;
    t.table.rows.push_back(
        {ArmName(*arm), Fixed(Number(*cpu, "server_us_per_handshake"), 1),
         Fixed(Number(*cpu, "floor_server_us"), 1), Ratio(Number(*cpu, "server_floor_ratio")),
         Fixed(Number(*cpu, "client_us_per_connection"), 1),
         Fixed(Number(*cpu, "floor_client_us"), 1), Ratio(Number(*cpu, "client_floor_ratio"))});
  }
  return t;
}

TitledTable CapacityTable(const json& summary) {
  TitledTable t;
  t.id = "capacity";
  t.title = "Server capacity: handshakes/s per server core";
  const json* cap = Field(summary, "capacity");
  if (cap == nullptr) return t;
  const double confidence = Number(*cap, "confidence").value_or(0.95);
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
  for (const json* a : Items(*cap, "arms")) {
    const json* cpu = Field(*a, "server_us_per_handshake");
    const json* hps = Field(*a, "handshakes_per_core_s");
    const json* more = Field(*a, "more_cpu_pct");
    std::string vs = "baseline";
    if (more != nullptr && more->is_object()) {
      const std::optional<double> pct = Number(*more, "estimate");
      vs = pct ? fmt::format("{:+.0f} %", *pct) : "–";
    } else if (Text(*a, "line") != "classical baseline") {
      vs = "–";
    }
    std::string label = Text(*a, "label");
    const json* invalid = Field(*a, "from_invalid_trials");
    if (invalid != nullptr && invalid->is_boolean() && invalid->get<bool>()) label += " (INVALID)";
    t.table.rows.push_back(
        {label, Text(*a, "target"), Text(*a, "trials", "0"),
         hps ? WithInterval(Number(*hps, "estimate"), Field(*hps, "ci"), 0) : "–",
         cpu ? WithInterval(Number(*cpu, "mean"), Field(*cpu, "ci"), 1) : "–",
         Fixed(Number(*a, "floor_server_us"), 1), Ratio(Number(*a, "floor_ratio")),
         Busy(Number(*a, "server_busy")), vs});
    if (more != nullptr && more->is_object()) {
      const json* ci = Field(*more, "ci");
      std::string interval;
      if (ci != nullptr && ci->is_array() && ci->size() == 2 && (*ci)[0].is_number() &&
          (*ci)[1].is_number()) {
        interval =
            fmt::format(" ({:+.0f} % to {:+.0f} % over {} paired blocks)", (*ci)[0].get<double>(),
                        (*ci)[1].get<double>(), Text(*more, "paired_blocks", "?"));
      }
      t.lines.push_back(fmt::format("{} [{}]: {}{} — baseline {}", Text(*a, "label"),
                                    Text(*a, "target"), Text(*a, "line"), interval,
                                    Text(*a, "baseline_label")));
    }
  }
  return t;
}

}  // namespace pqc::report
