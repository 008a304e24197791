// gate_fuzz — libFuzzer target for `compare --fail-if` expressions. Besides crashes it checks
// the promise a CI gate makes: an accepted gate never fails on an interval that contains 0
// (no difference detectable), whatever the baseline, and a rejected one says what is valid.
//
// Input: the expression text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/gate.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto gate = pqc::report::ParseGate(text);
  if (!gate) {
    Check(gate.error().message.find("valid:") != std::string::npos);
    return 0;
  }
  for (double baseline : {0.0, 1.0, 1e6, -5.0}) {
    for (double half : {0.0, 1e-9, 3.0, 1e9}) {
      Check(!pqc::report::GateFails(*gate, -half, half, baseline));
    }
  }
  Check(!pqc::report::GateFails(*gate, std::nullopt, std::nullopt, 1.0));
  return 0;
}
