#include "cli/count_output.h"

#include <fmt/format.h>

#include "core/text_table.h"

namespace pqc::cli {
namespace {

std::string Count(double v) {
  if (v >= 1e6) return fmt::format("{:.3f} M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.1f} k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

std::string Percent(double v) {
  return fmt::format("{:.1f} %", 100 * v);
}

std::string SpreadText(const std::vector<double>& v) {
  if (v.size() < 2) return "-";
  const double s = count::Spread(v);
  return s < 1e-4 ? fmt::format("{:.4f} %", 100 * s) : fmt::format("{:.2f} %", 100 * s);
}

}  // namespace

void WriteCountTables(std::ostream& out, const count::CountReport& r) {
  out << fmt::format(
      "{} — instructions per handshake ({} measured after {} warm-up, {} "
      "repetitions; callgrind; {})\n",
      r.arm, r.handshakes, r.warmup, r.wall_s.size(), r.openssl);
  for (const count::SideResult& side : r.sides) {
    const double total = count::Mean(side.total);
    Table t;
    t.headers = {side.side + " stage", "instructions", "share",  "spread",
                 "syscalls",           "floor alone",  "× floor"};
    t.right = {false, true, true, true, true, true, true};
    for (const count::StageResult& s : side.stages) {
      const double mean = count::Mean(s.per_handshake);
      std::string floor = "", times = "";
      if (s.floor && *s.floor > 0) {
        floor = Count(*s.floor);
        times = fmt::format("{:.2f}", mean / *s.floor);
      }
      t.rows.push_back({std::string(count::StageOf(s.stage).label), Count(mean),
                        Percent(total > 0 ? mean / total : 0), SpreadText(s.per_handshake),
                        s.syscalls > 0 ? fmt::format("{:.1f}", s.syscalls) : "", floor, times});
    }
    double syscalls = 0;
    for (const count::StageResult& s : side.stages) {
      if (s.stage == count::Stage::kKernel) syscalls = s.syscalls;
    }
    t.rows.push_back({"total", Count(total), "100.0 %", SpreadText(side.total),
                      fmt::format("{:.1f}", syscalls), "", ""});
    out << "\n";
    WriteTextTable(out, t);
    if (side.cpu_us && *side.cpu_us > 0) {
      out << fmt::format(
          "  natively: {:.1f} µs of CPU per handshake (user + system, {} "
          "connections one at a time) → {:.2f} instructions per µs\n",
          *side.cpu_us, r.native_connections, total / *side.cpu_us);
    }
    if (side.ambiguous_share > 0.001) {
      out << fmt::format(
          "  {} of the total was moved from a caller whose stage was not unique "
          "(count/stage_attribution.h)\n",
          Percent(side.ambiguous_share));
    }
  }
  out << fmt::format(
      "\nspread: (max - min) / mean over the repetitions. syscalls: as valgrind sees them — "
      "the vDSO's clock calls (clock_gettime, gettimeofday, time) are system calls only under "
      "valgrind. callgrind files: {}/ (callgrind_annotate --inclusive=yes FILE)\n",
      r.dir);
}

}  // namespace pqc::cli
