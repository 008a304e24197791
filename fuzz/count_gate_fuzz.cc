// count_gate_fuzz — libFuzzer target for `compare --fail-if` on count results
// (count/count_gate.h). Besides crashes it checks the gate's promise: an accepted gate never
// fails when the range of the difference contains 0, and a rejected one says what is valid.
//
// Input: the expression text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "count/count_gate.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto gate = pqc::count::ParseCountGate(text);
  if (!gate) {
    Check(gate.error().message.find("valid:") != std::string::npos);
    return 0;
  }
  Check(gate->side == "client" || gate->side == "server");
  for (double base : {0.0, 1.0, 2.5e6}) {
    for (double half : {0.0, 1e-9, 3.0, 1e9}) {
      pqc::count::CountDifference d;
      d.base = base;
      d.other = base;
      d.lo = -half;
      d.hi = half;
      Check(!pqc::count::CountGateFails(*gate, d));
    }
  }
  return 0;
}
