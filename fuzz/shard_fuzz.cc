// shard_fuzz — libFuzzer target for what a shard parses from outside: `--shard` (with the
// scheduler's environment), `--start-at`, and every line of the rendezvous protocol, which a
// shard reads from another process over TCP. Besides crashes it checks what the callers rely
// on: an accepted shard exists (index < count), an accepted message formats to a line that
// parses back to the same message, and no accepted start time lies before 1970. Each message
// line is also read as an authenticated one (SplitTag: "<message> mac=<64 hex>").
//
// Input: line 1 is --shard's text, line 2 the value of every environment variable asked for,
// line 3 --start-at's text; every further line is a rendezvous message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/shard.h"
#include "scenario/rendezvous.h"
#include "split_input.h"

using pqc::fuzz::Check;

namespace {

std::string_view NextLine(std::string_view& rest) {
  const size_t nl = rest.find('\n');
  const std::string_view line = rest.substr(0, nl);
  rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
  return line;
}

bool Same(const pqc::scenario::Message& a, const pqc::scenario::Message& b) {
  return a.kind == b.kind && a.nonce == b.nonce && a.shard.index == b.shard.index &&
         a.shard.count == b.shard.count && a.identity.version == b.identity.version &&
         a.identity.scenario == b.identity.scenario && a.identity.options == b.identity.options &&
         a.identity.plan == b.identity.plan && a.seq == b.seq && a.t0 == b.t0 && a.t1 == b.t1 &&
         a.start_at == b.start_at && a.port == b.port && a.payload == b.payload &&
         a.valid == b.valid && a.text == b.text && a.netns == b.netns;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const std::string_view shard_text = NextLine(rest);
  const std::string env_value(NextLine(rest));
  const std::string_view start_text = NextLine(rest);

  auto shard = pqc::ParseShard(shard_text, [&](const char*) -> std::optional<std::string> {
    if (env_value == "-") return std::nullopt;  // a way to say "unset"
    return env_value;
  });
  if (shard) Check(shard->count >= 1 && shard->index < shard->count);

  auto at = pqc::ParseUtcTime(start_text, 1'700'000'000'000'000'000);
  if (at && !start_text.starts_with("now+")) Check(*at >= 0);

  while (!rest.empty()) {
    std::string_view line = NextLine(rest);
    if (auto tagged = pqc::scenario::SplitTag(line)) {
      Check(tagged->tag.size() == pqc::scenario::kTagHex);
      Check(tagged->message.size() + 5 + tagged->tag.size() == line.size());
      line = tagged->message;
    }
    auto m = pqc::scenario::ParseMessage(line);
    if (!m) continue;
    const std::string again = pqc::scenario::FormatMessage(*m);
    auto back = pqc::scenario::ParseMessage(again);
    Check(back.ok() && Same(*m, *back));
    // A shard is only ever told to enter a namespace pqc-bench made.
    Check(m->netns.empty() || pqc::scenario::IsToolNetns(m->netns));
  }
  return 0;
}
