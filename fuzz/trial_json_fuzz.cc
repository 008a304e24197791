// trial_json_fuzz — libFuzzer target for the typed readers of the JSON a results database
// stores (core/json_fields.h over the field lists of trial_record.h, run_record.h,
// network_facts.h and arm_view.h), which read files another version, a crash or a hand may
// have written. The first byte picks the record, the rest is the JSON text. Besides crashes it
// checks that a refusal carries a message, and that an accepted value writes back to JSON that
// reads again and writes the same (the writer and the reader walk one list).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "results/arm_view.h"
#include "results/network_facts.h"
#include "results/run_record.h"
#include "results/trial_record.h"
#include "split_input.h"

namespace {

using pqc::fuzz::Check;
using pqc::json_fields::Read;
using pqc::json_fields::Writer;

template <class T>
void RoundTrip(const nlohmann::ordered_json& j) {
  T first;
  const pqc::Status st = Read(j, first, "fuzz");
  if (!st) {
    Check(!st.error().message.empty());
    return;
  }
  const nlohmann::ordered_json written = Writer::Value(first);
  T second;
  Check(Read(written, second, "fuzz").ok());
  Check(Writer::Value(second) == written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  switch (data[0] % 9) {
    case 0:
      RoundTrip<pqc::LoadSummary>(j);
      break;
    case 1:
      RoundTrip<pqc::results::TargetRecord>(j);
      break;
    case 2:
      RoundTrip<std::optional<pqc::results::LinkRecord>>(j);
      break;
    case 3:
      RoundTrip<std::vector<pqc::results::ShardView>>(j);
      break;
    case 4:
      RoundTrip<std::vector<std::string>>(j);
      break;
    case 5:
      RoundTrip<pqc::results::Networks>(j);
      break;
    case 6:
      RoundTrip<pqc::results::RunAsked>(j);
      break;
    case 7:
      RoundTrip<pqc::results::ShardFacts>(j);
      break;
    default:
      RoundTrip<pqc::results::ArmView>(j);
      break;
  }
  return 0;
}
