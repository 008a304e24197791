#include "stats/percentiles.h"

#include <algorithm>
#include <cmath>

namespace pqc {

double Percentile(std::span<const double> sorted, double q) {
  if (sorted.empty() || std::isnan(q)) return PhaseStats::kUndefined;
  q = std::clamp(q, 0.0, 1.0);
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const double lower = std::floor(h);
  const auto i = static_cast<size_t>(lower);
  if (i + 1 >= sorted.size()) return sorted.back();
  const double fraction = h - lower;
  // Written as a + f·(b − a): exact at f = 0 and equal to a when a == b.
  return sorted[i] + fraction * (sorted[i + 1] - sorted[i]);
}

PhaseStats Summarize(std::vector<double> values) {
  PhaseStats s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  // Mean by a running update rather than sum / n: exact for constant input (sum / n of
  // 0.1 three times is not 0.1), so a constant phase reports min == mean == max.
  double mean = 0;
  double n = 0;
  for (double v : values) {
    n += 1;
    mean += (v - mean) / n;
  }
  s.min = values.front();
  s.max = values.back();
  s.mean = mean;
  s.p50 = Percentile(values, 0.50);
  s.p75 = Percentile(values, 0.75);
  s.p90 = Percentile(values, 0.90);
  s.p95 = Percentile(values, 0.95);
  s.p99 = Percentile(values, 0.99);
  s.p999 = Percentile(values, 0.999);
  return s;
}

}  // namespace pqc
