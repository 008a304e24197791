// stage_table — the one place that says which functions belong to which stage of a handshake.
// `count` splits a callgrind profile's instructions into these stages (stage_attribution.h):
// a function listed here is an entry of its stage, and what runs inside it belongs to that
// stage unless a more specific one (a higher priority) takes over further down. The names are
// OpenSSL 3.5/3.6's (all present as symbols of the set-up's libssl and libcrypto, exported or
// static) and ours; a renamed function would silently fall back to its caller's stage, so
// count_test.cc checks the table's shape and the names' form.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pqc::count {

enum class Stage : uint8_t {
  kKeyShare,
  kKeyExchange,
  kSign,
  kVerify,
  kChain,
  kSchedule,
  kTickets,
  kRecord,
  kHttp,
  kKernel,
  kRest,
};

// StageInfo: `id` is the stable name stored in count.json; `priority` decides which stage
// wins where entries nest (the higher, the more specific; equal: the outer one stays);
// `entries` are exact function names, or prefixes written with a trailing '*'. kKernel lists
// none: it takes the own cost of the functions that make system calls themselves, known per
// profile (stage_attribution.h); kRest none: it is what no other stage takes.
struct StageInfo {
  Stage stage;
  std::string_view id;
  std::string_view label;
  int priority;
  std::vector<std::string_view> entries;
};

// Stages: every stage, in the enum's order (kRest last).
const std::vector<StageInfo>& Stages();
const StageInfo& StageOf(Stage stage);
std::optional<Stage> ParseStageId(std::string_view id);

// EntryStage: the stage `function_name` is an entry of, if any. Names are callgrind's:
// demangled C++ with its parameter list ("pqc::RequestParser::Feed(std::basic_string_view<…>)"),
// C functions plain, either with callgrind's "'N" when it names a recursion level apart. An
// exact entry matches the name up to the '(' of its parameter list (or that suffix); a prefix
// entry matches every name that starts with the prefix. Kernel entries are not names: nullopt.
std::optional<Stage> EntryStage(std::string_view function_name);

}  // namespace pqc::count
