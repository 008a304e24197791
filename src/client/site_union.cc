#include "client/site_union.h"

#include <algorithm>
#include <cstdint>

namespace pqc {

LoadResult UniteSites(std::vector<LoadResult> sites, const LoadOptions& options) {
  LoadResult out;
  out.options = options;
  out.threads = 0;
  bool first = true;
  for (size_t k = 0; k < sites.size(); ++k) {
    LoadResult& s = sites[k];
    const auto base = static_cast<uint32_t>(out.requests.size());
    for (ConnectionRecord& c : s.connections) {
      c.site = static_cast<uint8_t>(k);
      c.id |= static_cast<uint64_t>(k) << 56;  // a worker's ids use the low 56 bits
      c.first_request += base;
      out.connections.push_back(std::move(c));
    }
    out.requests.insert(out.requests.end(), s.requests.begin(), s.requests.end());
    out.run_start = first ? s.run_start : std::min(out.run_start, s.run_start);
    out.measure_start = first ? s.measure_start : std::min(out.measure_start, s.measure_start);
    out.measure_end = std::max(out.measure_end, s.measure_end);
    out.start_late = std::max(out.start_late, s.start_late);
    out.skipped += s.skipped;
    out.unfinished += s.unfinished;
    out.cpu_user_s += s.cpu_user_s;
    out.cpu_sys_s += s.cpu_sys_s;
    out.measured_wall_s = std::max(out.measured_wall_s, s.measured_wall_s);
    out.cpu_wall_s = std::max(out.cpu_wall_s, s.cpu_wall_s);
    out.threads += s.threads;
    out.interrupted = out.interrupted || s.interrupted;
    out.aborted = out.aborted || s.aborted;
    first = false;
  }
  std::stable_sort(out.connections.begin(), out.connections.end(),
                   [](const ConnectionRecord& a, const ConnectionRecord& b) {
                     return a.intended_start < b.intended_start;
                   });
  return out;
}

}  // namespace pqc
