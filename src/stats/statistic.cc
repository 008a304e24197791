#include "stats/statistic.h"

#include "stats/percentiles.h"

namespace pqc {

std::string_view StatisticName(Statistic statistic) {
  switch (statistic) {
    case Statistic::kMean:
      return "mean";
    case Statistic::kP50:
      return "p50";
    case Statistic::kP95:
      return "p95";
    case Statistic::kP99:
      return "p99";
  }
  return "unknown";
}

double StatisticQuantile(Statistic statistic) {
  switch (statistic) {
    case Statistic::kP50:
      return 0.50;
    case Statistic::kP95:
      return 0.95;
    case Statistic::kP99:
      return 0.99;
    case Statistic::kMean:
      break;
  }
  return Interval::kUndefined;
}

double StatisticOf(std::span<const double> sorted, Statistic statistic) {
  if (sorted.empty()) return Interval::kUndefined;
  if (statistic != Statistic::kMean) return Percentile(sorted, StatisticQuantile(statistic));
  // Running mean, as in Summarize: exact for constant input.
  double mean = 0;
  double n = 0;
  for (double v : sorted) {
    n += 1;
    mean += (v - mean) / n;
  }
  return mean;
}

}  // namespace pqc
