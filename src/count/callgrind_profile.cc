#include "count/callgrind_profile.h"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

namespace pqc::count {

namespace {

constexpr size_t kNoFunction = SIZE_MAX;

bool IsBlank(char c) {
  return c == ' ' || c == '\t';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsLower(char c) {
  return c >= 'a' && c <= 'z';
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// NextToken: the next blank-separated token of *rest ("" at the end), removed from it.
std::string_view NextToken(std::string_view* rest) {
  std::string_view s = *rest;
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  size_t n = 0;
  while (n < s.size() && !IsBlank(s[n])) ++n;
  *rest = s.substr(n);
  return s.substr(0, n);
}

// Printable: a piece of the input fit for a message — short, and without control or
// non-ASCII bytes (a binary file's would garble the terminal).
std::string Printable(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string out;
  for (char c : s.substr(0, kMax)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > kMax) out += "…";
  return out;
}

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// ParseNumber: the format's Number — decimal digits, or "0x" and hex digits — that fits 64
// bits. Anything else (a sign, an empty string, an overflow) is nullopt.
std::optional<uint64_t> ParseNumber(std::string_view s) {
  uint64_t base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    const int d = base == 16 ? HexValue(c) : (IsDigit(c) ? c - '0' : -1);
    if (d < 0) return std::nullopt;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / base) return std::nullopt;
    v = v * base + static_cast<uint64_t>(d);
  }
  return v;
}

// IsSubposition: "N", "+N", "-N" or "*". The values themselves are not needed (costs are
// summed per function), so relative positions are checked for form, never resolved.
bool IsSubposition(std::string_view s) {
  if (s == "*") return true;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  return ParseNumber(s).has_value();
}

// CheckedAdd: a += b, false on overflow (a stays as it was).
bool CheckedAdd(uint64_t* a, uint64_t b) {
  if (*a > UINT64_MAX - b) return false;
  *a += b;
  return true;
}

bool CheckedAdd(EventCosts* a, const EventCosts& b) {
  EventCosts sum = *a;
  if (!CheckedAdd(&sum.ir, b.ir) || !CheckedAdd(&sum.syscalls, b.syscalls)) return false;
  *a = sum;
  return true;
}

// The three spaces of compressed names: callgrind numbers objects, files and functions
// separately and shares each numbering between the position and its call (and jump) target.
enum class NameSpace : uint8_t { kObject, kFile, kFunction };

class Parser {
 public:
  explicit Parser(std::string_view source) : source_(source) {}

  Result<Profile> Run(std::string_view text) {
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ++line_no_;
      if (Status s = Line(line); !s) return s.error();
      start = end + 1;
    }
    return Finish();
  }

 private:
  Error Fail(std::string what) const {
    if (line_no_ == 0) return MakeError(ErrorKind::kConfig, fmt::format("{}: {}", source_, what));
    return MakeError(ErrorKind::kConfig, fmt::format("{}:{}: {}", source_, line_no_, what));
  }

  Status Line(std::string_view line) {
    if (call_line_ != 0) return CallCost(line);
    if (line.empty() || line[0] == '#') return {};
    const char c = line[0];
    if (IsDigit(c) || c == '+' || c == '-' || c == '*') return SelfCost(line);
    size_t n = 0;
    while (n < line.size() && IsLower(line[n])) ++n;
    if (n > 0 && n < line.size() && line[n] == '=') {
      return Specification(line.substr(0, n), line.substr(n + 1));
    }
    if (n > 0 && n < line.size() && line[n] == ':') {
      return Header(line.substr(0, n), TrimBlanks(line.substr(n + 1)));
    }
    return Fail(fmt::format("not a callgrind line: '{}'", Printable(line)));
  }

  Status Header(std::string_view key, std::string_view value) {
    if (key == "totals" || key == "summary") return Sum(key, value);
    if (body_started_) {
      return Fail(
          fmt::format("header line '{}:' after the cost lines (a file of several parts? "
                      "one part per file is read)",
                      key));
    }
    if (key == "version") {
      const std::optional<uint64_t> v = ParseNumber(value);
      if (!v || *v > 1) {
        return Fail(
            fmt::format("version '{}': only version 1 of the format is read", Printable(value)));
      }
    } else if (key == "cmd") {
      command_ = std::string(value);
    } else if (key == "positions") {
      return Positions(value);
    } else if (key == "events") {
      return Events(value);
    } else if (key != "creator" && key != "pid" && key != "thread" && key != "part" &&
               key != "desc" && key != "event") {
      return Fail(fmt::format("unknown header '{}:'", Printable(key)));
    }
    return {};
  }

  Status Positions(std::string_view value) {
    std::string_view rest = value;
    size_t count = 0;
    for (std::string_view t = NextToken(&rest); !t.empty(); t = NextToken(&rest)) {
      if (t != "instr" && t != "bb" && t != "line") {
        return Fail(fmt::format("unknown position '{}' (instr, bb, line)", Printable(t)));
      }
      ++count;
    }
    if (count == 0 || count > 3) return Fail("positions: needs one to three of instr, bb, line");
    positions_ = count;
    return {};
  }

  Status Events(std::string_view value) {
    if (events_ > 0) {
      return Fail("a second events: line (a file of several parts? one part per file is read)");
    }
    std::string_view rest = value;
    size_t count = 0;
    for (std::string_view t = NextToken(&rest); !t.empty(); t = NextToken(&rest), ++count) {
      if (t == "Ir" && !ir_index_) ir_index_ = count;
      if (t == "sysCount" && !syscall_index_) syscall_index_ = count;
    }
    if (count == 0) return Fail("events: names no event");
    if (!ir_index_) return Fail("events: has no Ir (instructions), which is what is counted");
    events_ = count;
    return {};
  }

  // Sum: the totals: line (the sum of every self cost, written last) or the summary: line
  // (the same, written first; it may count what the cost lines do not, so totals: wins).
  Status Sum(std::string_view key, std::string_view value) {
    if (events_ == 0) return Fail(fmt::format("{}: before the events: line", key));
    std::optional<EventCosts>& slot = key == "totals" ? totals_ : summary_;
    if (slot) return Fail(fmt::format("a second {}: line", key));
    Result<EventCosts> costs = Costs(value);
    if (!costs) return costs.error();
    slot = *costs;
    if (key == "totals") totals_line_ = line_no_;
    return {};
  }

  Status Specification(std::string_view key, std::string_view value) {
    if (key == "calls") return Calls(value);
    if (key == "jump" || key == "jcnd") return {};  // jumps (--collect-jumps): not counted
    NameSpace space;
    if (key == "ob" || key == "cob") {
      space = NameSpace::kObject;
    } else if (key == "fl" || key == "fi" || key == "fe" || key == "cfi" || key == "cfl" ||
               key == "jfi") {
      space = NameSpace::kFile;
    } else if (key == "fn" || key == "cfn" || key == "jfn") {
      space = NameSpace::kFunction;
    } else {
      return Fail(fmt::format("unknown specification '{}='", Printable(key)));
    }
    Result<std::string_view> name = Name(space, value);
    if (!name) return name.error();
    if (key == "ob") {
      object_ = *name;
    } else if (key == "fn") {
      function_ = FunctionIndex(object_, *name);
      callee_object_.reset();
      callee_name_.reset();
    } else if (key == "cob") {
      callee_object_ = *name;
    } else if (key == "cfn") {
      callee_name_ = *name;
    }
    return {};
  }

  // Name: a position's name, compressed or not. "(id) name" defines id, "(id)" refers to it;
  // a name that does not start with "(" and a digit is itself.
  Result<std::string_view> Name(NameSpace space, std::string_view value) {
    value = TrimBlanks(value);
    if (value.size() < 2 || value[0] != '(' || !IsDigit(value[1])) {
      if (value.empty()) return Fail("empty name");
      return value;
    }
    const size_t close = value.find(')');
    if (close == std::string_view::npos) {
      return Fail(fmt::format("name '{}' has no ')' after its id", Printable(value)));
    }
    const std::optional<uint64_t> id = ParseNumber(value.substr(1, close - 1));
    if (!id) return Fail(fmt::format("bad name id in '{}'", Printable(value)));
    const std::string_view name = TrimBlanks(value.substr(close + 1));
    auto& names = names_[static_cast<size_t>(space)];
    auto found = names.find(*id);
    if (name.empty()) {
      if (found == names.end()) {
        return Fail(fmt::format("name id ({}) used before it is defined", *id));
      }
      return std::string_view(found->second);
    }
    if (found == names.end()) {
      found = names.emplace(*id, std::string(name)).first;
    } else if (found->second != name) {
      return Fail(fmt::format("name id ({}) defined again as another name ('{}', was '{}')", *id,
                              Printable(name), Printable(found->second)));
    }
    return std::string_view(found->second);
  }

  // Calls: "calls=COUNT TARGET"; the next line is the calls' inclusive cost.
  Status Calls(std::string_view value) {
    if (function_ == kNoFunction) return Fail("calls= before any fn=");
    if (!callee_name_) return Fail("calls= without a cfn= naming the function called");
    std::string_view rest = value;
    const std::string_view count_text = NextToken(&rest);
    const std::optional<uint64_t> count = ParseNumber(count_text);
    if (!count) return Fail(fmt::format("bad call count '{}'", Printable(count_text)));
    size_t targets = 0;
    for (std::string_view t = NextToken(&rest); !t.empty(); t = NextToken(&rest), ++targets) {
      if (!IsSubposition(t)) return Fail(fmt::format("bad call target '{}'", Printable(t)));
    }
    if (targets == 0 || targets > positions_) {
      return Fail(fmt::format("calls= needs a target of 1 to {} positions", positions_));
    }
    // cob= and cfn= name the target of this call only; the next falls back to ob=.
    callee_ = FunctionIndex(callee_object_.value_or(object_), *callee_name_);
    callee_object_.reset();
    callee_name_.reset();
    call_count_ = *count;
    call_line_ = line_no_;
    return {};
  }

  Status CallCost(std::string_view line) {
    const size_t call_line = call_line_;
    call_line_ = 0;
    if (line.empty() || !(IsDigit(line[0]) || line[0] == '+' || line[0] == '-' || line[0] == '*')) {
      return Fail(fmt::format("calls= of line {} is not followed by its cost line", call_line));
    }
    Result<EventCosts> cost = PositionAndCosts(line);
    if (!cost) return cost.error();
    auto [it, added] = call_index_.emplace(std::make_pair(function_, callee_), calls_.size());
    if (added) calls_.push_back({function_, callee_, 0, {}});
    ProfileCall& call = calls_[it->second];
    if (!CheckedAdd(&call.calls, call_count_) || !CheckedAdd(&call.inclusive, *cost)) {
      return Fail("a call's summed costs overflow 64 bits");
    }
    return {};
  }

  Status SelfCost(std::string_view line) {
    if (function_ == kNoFunction) return Fail("cost line before any fn=");
    Result<EventCosts> cost = PositionAndCosts(line);
    if (!cost) return cost.error();
    if (!CheckedAdd(&functions_[function_].self, *cost) || !CheckedAdd(&self_sum_, *cost)) {
      return Fail("the summed costs overflow 64 bits");
    }
    return {};
  }

  // PositionAndCosts: a cost line — its positions, then up to one number per event.
  Result<EventCosts> PositionAndCosts(std::string_view line) {
    if (events_ == 0) return Fail("cost line before the events: line");
    body_started_ = true;
    std::string_view rest = line;
    for (size_t i = 0; i < positions_; ++i) {
      const std::string_view t = NextToken(&rest);
      if (t.empty()) return Fail(fmt::format("cost line without its {} position(s)", positions_));
      if (!IsSubposition(t)) return Fail(fmt::format("bad position '{}'", Printable(t)));
    }
    return Costs(rest);
  }

  Result<EventCosts> Costs(std::string_view text) {
    EventCosts costs;
    size_t i = 0;
    for (std::string_view t = NextToken(&text); !t.empty(); t = NextToken(&text), ++i) {
      if (i == events_) return Fail(fmt::format("more costs than the {} events", events_));
      const std::optional<uint64_t> v = ParseNumber(t);
      if (!v) return Fail(fmt::format("bad cost '{}'", Printable(t)));
      if (i == ir_index_) costs.ir = *v;
      if (i == syscall_index_) costs.syscalls = *v;
    }
    return costs;
  }

  size_t FunctionIndex(std::string_view object, std::string_view name) {
    auto [it, added] = function_index_.emplace(std::make_pair(object, name), functions_.size());
    if (added) functions_.push_back({std::string(object), std::string(name), {}});
    return it->second;
  }

  Result<Profile> Finish() {
    if (call_line_ != 0) {
      return Fail(
          fmt::format("the file ends after calls= of line {}, without its cost line "
                      "(truncated?)",
                      call_line_));
    }
    if (events_ == 0) return Fail("no events: line (not a callgrind file?)");
    const std::optional<EventCosts>& sum = totals_ ? totals_ : summary_;
    if (!sum) return Fail("no totals: or summary: line (truncated?)");
    if (sum->ir != self_sum_.ir || sum->syscalls != self_sum_.syscalls) {
      return MakeError(
          ErrorKind::kConfig,
          fmt::format("{}:{}: {} says Ir {} and sysCount {}, the cost lines sum to {} and {} "
                      "(truncated or altered file?)",
                      source_, totals_ ? totals_line_ : line_no_, totals_ ? "totals:" : "summary:",
                      sum->ir, sum->syscalls, self_sum_.ir, self_sum_.syscalls));
    }
    Profile p;
    p.command = std::move(command_);
    p.functions = std::move(functions_);
    p.calls = std::move(calls_);
    p.totals = *sum;
    return p;
  }

  std::string_view source_;
  size_t line_no_ = 0;
  bool body_started_ = false;
  size_t positions_ = 1;  // "positions: line" unless the header says otherwise
  size_t events_ = 0;
  std::optional<size_t> ir_index_, syscall_index_;
  std::string command_;
  std::optional<EventCosts> totals_, summary_;
  size_t totals_line_ = 0;
  EventCosts self_sum_;

  // Names live in names_ (node-based: stable) or in the text itself, which outlives the parse.
  std::unordered_map<uint64_t, std::string> names_[3];
  std::string_view object_;
  size_t function_ = kNoFunction;
  std::optional<std::string_view> callee_object_, callee_name_;
  size_t callee_ = 0;
  uint64_t call_count_ = 0;
  size_t call_line_ = 0;  // the calls= line whose cost line comes next; 0: none

  std::vector<ProfileFunction> functions_;
  std::map<std::pair<std::string_view, std::string_view>, size_t> function_index_;
  std::vector<ProfileCall> calls_;
  std::map<std::pair<size_t, size_t>, size_t> call_index_;
};

}  // namespace

Result<Profile> ParseCallgrind(std::string_view text, std::string_view source_name) {
  return Parser(source_name).Run(text);
}

}  // namespace pqc::count
