// error_histogram — two linear ranges of bins plus an overflow bin.
#include "link/error_histogram.h"

#include <algorithm>
#include <cmath>

namespace pqc::link {
namespace {

constexpr Nanos kFineStep = 100;           // 0.1 µs
constexpr Nanos kFineEnd = 1'000'000;      // 1 ms
constexpr Nanos kCoarseStep = 10'000;      // 10 µs
constexpr Nanos kCoarseEnd = 100'000'000;  // 100 ms
constexpr size_t kFineBins = kFineEnd / kFineStep;
constexpr size_t kCoarseBins = (kCoarseEnd - kFineEnd) / kCoarseStep;
constexpr size_t kBins = kFineBins + kCoarseBins + 1;  // + overflow

size_t BinOf(Nanos e) {
  if (e < kFineEnd) return static_cast<size_t>(e / kFineStep);
  if (e < kCoarseEnd) return kFineBins + static_cast<size_t>((e - kFineEnd) / kCoarseStep);
  return kBins - 1;
}

Nanos UpperEdge(size_t bin) {
  if (bin < kFineBins) return static_cast<Nanos>(bin + 1) * kFineStep;
  if (bin < kBins - 1) return kFineEnd + static_cast<Nanos>(bin - kFineBins + 1) * kCoarseStep;
  return kCoarseEnd;
}

}  // namespace

ErrorHistogram::ErrorHistogram() : bins_(kBins, 0) {}

void ErrorHistogram::Add(Nanos error) {
  error = std::max<Nanos>(0, error);
  ++bins_[BinOf(error)];
  ++count_;
  max_ = std::max(max_, error);
}

void ErrorHistogram::Merge(const ErrorHistogram& other) {
  for (size_t i = 0; i < kBins; ++i) bins_[i] += other.bins_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

double ErrorHistogram::PercentileMicros(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const auto rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t i = 0; i < kBins; ++i) {
    seen += bins_[i];
    if (seen >= rank) return NanosToMicros(std::min(UpperEdge(i), max_));
  }
  return MaxMicros();
}

}  // namespace pqc::link
