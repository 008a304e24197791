// count_report_fuzz — libFuzzer target for count.json (count/count_report_json.h), which
// `compare` and `report` read from any path they are given. Besides crashes it checks that an
// accepted document is whole (both sides, one count per repetition everywhere) and that writing
// it and reading it back gives the same counts.
//
// Input: the document text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "count/count_report_json.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = pqc::count::ParseCountReport(text, "fuzz.json");
  if (!r) {
    Check(!r.error().message.empty());
    return 0;
  }
  Check(r->sides.size() == 2);
  for (const auto& side : r->sides) {
    Check(side.total.size() == r->wall_s.size());
    for (const auto& stage : side.stages) Check(stage.per_handshake.size() == r->wall_s.size());
  }
  const std::string again = pqc::count::CountReportJson(*r).dump();
  auto back = pqc::count::ParseCountReport(again, "again.json");
  Check(static_cast<bool>(back));
  Check(back->sides.size() == 2 && back->sides[1].total == r->sides[1].total);
  return 0;
}
