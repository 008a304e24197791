// units_fuzz — libFuzzer target for the quantity parsers (durations, sizes, bit rates,
// percentages, event rates) that every front end shares. Besides crashes it checks what the
// callers rely on: results in range, and sizes surviving FormatSize → ParseSize, the path a
// payload size takes into an arm name and back.
//
// Input: the text given to every parser.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/units.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto d = pqc::ParseDuration(text)) {
    Check(*d >= 0);
  } else {
    Check(!d.error().message.empty());
  }

  if (auto s = pqc::ParseSize(text)) {
    auto again = pqc::ParseSize(pqc::FormatSize(*s));
    Check(again.ok() && *again == *s);
  } else {
    Check(!s.error().message.empty());
  }

  if (auto b = pqc::ParseBitRate(text)) {
    Check(*b >= 1);
  } else {
    Check(!b.error().message.empty());
  }

  if (auto p = pqc::ParsePercent(text)) {
    Check(*p >= 0 && *p <= 1);
  } else {
    Check(!p.error().message.empty());
  }

  if (auto r = pqc::ParseRate(text)) {
    Check(std::isfinite(*r) && *r > 0);
  } else {
    Check(!r.error().message.empty());
  }
  return 0;
}
