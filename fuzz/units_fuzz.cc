// units_fuzz — libFuzzer target for the quantity parsers (durations, sizes, bit rates,
// percentages, event rates) that every front end shares, and the protocol list of `serve`. Besides
// crashes it checks what the callers rely on: results in range, and sizes surviving FormatSize →
// ParseSize, the path a payload size takes into an arm name and back, and every accepted quantity
// being its number times its unit (a value must never wrap or saturate on the way to an integer).
//
// Input: the text given to every parser.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/protocol.h"
#include "core/units.h"
#include "split_input.h"

using pqc::fuzz::Check;

namespace {

// CheckScaled: an accepted `value` is the text's leading number times its unit's factor,
// the factor being what the same parser makes of "1" + unit (1 for a bare number). The
// parsers round to integers, so half a unit of absolute error is allowed.
template <typename Parse>
void CheckScaled(std::string_view text, double value, Parse parse) {
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  Check(ec == std::errc());
  const std::string_view suffix(end, static_cast<size_t>(text.data() + text.size() - end));
  double factor = 1;
  if (!suffix.empty()) {
    auto unit = parse("1" + std::string(suffix));
    Check(unit.ok());
    factor = static_cast<double>(*unit);
  }
  const double expected = number * factor;
  Check(std::fabs(value - expected) <= 0.5 + expected * 1e-12);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto d = pqc::ParseDuration(text)) {
    Check(*d >= 0);
    CheckScaled(text, static_cast<double>(*d), pqc::ParseDuration);
  } else {
    Check(!d.error().message.empty());
  }

  if (auto s = pqc::ParseSize(text)) {
    auto again = pqc::ParseSize(pqc::FormatSize(*s));
    Check(again.ok() && *again == *s);
    CheckScaled(text, static_cast<double>(*s), pqc::ParseSize);
  } else {
    Check(!s.error().message.empty());
  }

  if (auto b = pqc::ParseBitRate(text)) {
    Check(*b >= 1);
    CheckScaled(text, static_cast<double>(*b), pqc::ParseBitRate);
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

  // The protocol list of `serve --protocol`: one to all of the protocols, each once, each
  // surviving its name's round trip.
  if (auto list = pqc::ParseProtocolList(text)) {
    Check(!list->empty() && list->size() <= pqc::Protocols().size());
    for (size_t i = 0; i < list->size(); ++i) {
      for (size_t j = i + 1; j < list->size(); ++j) Check((*list)[i] != (*list)[j]);
    }
    for (pqc::Protocol p : *list) {
      auto again = pqc::ParseProtocol(pqc::ProtocolName(p));
      Check(again.ok() && *again == p);
    }
  } else {
    Check(!list.error().message.empty());
  }
  return 0;
}
