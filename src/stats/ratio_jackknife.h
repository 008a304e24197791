// ratio_jackknife — the interval of a ratio of two arms' means (CPU per handshake of a hybrid
// arm ÷ its classical baseline) around the ratio that is printed. The report prints the ratio
// of the arms' means over trials; an interval built around the mean of per-block ratios is
// centred elsewhere, and the printed number could lie outside its own interval. Here the
// estimate is the ratio of means itself and its variance the delete-one-block jackknife of that
// ratio (a block left out of both arms at once, so the state a block shared cancels, as in
// trial_jackknife.h's PairedDifference), with Student t on B − 1 degrees of freedom.
#pragma once

#include <cstdint>
#include <span>

#include "stats/trial_jackknife.h"

namespace pqc {

// BlockValue: one trial's value (e.g. µs of server CPU per handshake) and its block.
struct BlockValue {
  uint64_t block = 0;
  double value = 0;
};

// RatioOfMeans: mean(arm)/mean(base) with its interval, over the blocks of either arm (a block
// one arm lacks leaves that arm whole). Non-finite values are skipped. No interval unless each
// arm has values in two blocks or more and base's mean is positive. `floor_variance` (≥ 0) is
// the variance of one value that its measurement alone implies; the interval is never narrower
// than z times the ratio's standard error from it (delta method).
UnitInterval RatioOfMeans(std::span<const BlockValue> base, std::span<const BlockValue> arm,
                          double floor_variance, double confidence = 0.95);

}  // namespace pqc
