#include "count/count_report.h"

#include <algorithm>
#include <numeric>

namespace pqc::count {

const StageResult* SideResult::Find(Stage s) const {
  for (const StageResult& r : stages) {
    if (r.stage == s) return &r;
  }
  return nullptr;
}

const SideResult* CountReport::Side(std::string_view name) const {
  for (const SideResult& s : sides) {
    if (s.side == name) return &s;
  }
  return nullptr;
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double Spread(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const double m = Mean(v);
  return m > 0 ? (*hi - *lo) / m : 0;
}

}  // namespace pqc::count
