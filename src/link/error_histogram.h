// error_histogram — how late the mover released packets, kept in fixed memory however many
// packets pass (a 1 Gbit/s run moves ~80,000 a second), with 0.1 µs resolution below 1 ms
// where the mover's precision matters and 10 µs up to 100 ms; the maximum is kept exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "core/clock.h"

namespace pqc::link {

class ErrorHistogram {
 public:
  ErrorHistogram();
  // Add: a lateness in ns (negative values, i.e. early, count as 0).
  void Add(Nanos error);
  void Merge(const ErrorHistogram& other);
  uint64_t count() const { return count_; }
  // Percentile: q in [0, 1]; the upper edge of the bin holding that rank (µs), 0 when empty.
  double PercentileMicros(double q) const;
  double MaxMicros() const { return NanosToMicros(max_); }

 private:
  std::vector<uint64_t> bins_;
  uint64_t count_ = 0;
  Nanos max_ = 0;
};

}  // namespace pqc::link
