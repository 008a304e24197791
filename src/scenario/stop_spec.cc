#include "scenario/stop_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/units.h"
#include "scenario/scenario_parts.h"

namespace pqc::scenario {
namespace {

constexpr std::string_view kStopKeys =
    "p50, p95, p99, mean, phases, factors, time, blocks, min_blocks, confidence, length";
constexpr int64_t kMaxBlocks = 1000;  // as [trials] count

std::optional<Statistic> StatisticKey(std::string_view key) {
  for (Statistic s : {Statistic::kMean, Statistic::kP50, Statistic::kP95, Statistic::kP99}) {
    if (StatisticName(s) == key) return s;
  }
  return std::nullopt;
}

// PrecisionOf: "2%" (of the baseline arm's statistic) or a time ("30us", "0.5ms").
Result<Precision> PrecisionOf(const Where& where, const toml::node& v, std::string_view key) {
  auto text = v.value_exact<std::string>();
  const std::string valid = fmt::format(
      "{} must be a share of the baseline arm's {} (\"2%\") or a time (\"30us\"), above 0", key,
      key);
  if (!text || text->empty()) return where(v, valid);
  if (text->back() == '%') {
    auto p = ParsePercent(*text);
    if (!p || *p <= 0) return where(v, valid);
    return Precision{.kind = Precision::Kind::kRelative, .value = *p};
  }
  auto ns = ParseDuration(*text);
  if (!ns || *ns <= 0) return where(v, valid);
  return Precision{.kind = Precision::Kind::kAbsolute, .value = static_cast<double>(*ns) / 1e3};
}

Result<std::vector<std::string>> Strings(const Where& where, const toml::node& v,
                                         std::string_view what) {
  const toml::array* a = v.as_array();
  if (a == nullptr || a->empty())
    return where(v, fmt::format("{} must be a non-empty array of strings", what));
  std::vector<std::string> out;
  for (const toml::node& e : *a) {
    auto s = e.value_exact<std::string>();
    if (!s) return where(e, fmt::format("{} must be a non-empty array of strings", what));
    if (std::find(out.begin(), out.end(), *s) != out.end()) {
      return where(e, fmt::format("'{}' is named twice in {}", *s, what));
    }
    out.push_back(*s);
  }
  return out;
}

Result<std::vector<Phase>> PhasesOf(const Where& where, const toml::node& v) {
  auto names = Strings(where, v, "phases");
  if (!names) return names.error();
  std::vector<std::string_view> valid;
  for (Phase p : kAllPhases) valid.push_back(PhaseName(p));
  std::vector<Phase> out;
  for (size_t i = 0; i < names->size(); ++i) {
    auto it = std::find(valid.begin(), valid.end(), (*names)[i]);
    if (it == valid.end()) {
      return where(*v.as_array()->get(i), fmt::format("unknown phase '{}' (valid: {})", (*names)[i],
                                                      fmt::join(valid, ", ")));
    }
    out.push_back(kAllPhases[static_cast<size_t>(it - valid.begin())]);
  }
  return out;
}

Result<int64_t> Integer(const Where& where, const toml::node& v, std::string_view key, int64_t lo,
                        int64_t hi) {
  auto n = v.value_exact<int64_t>();
  if (!n || *n < lo || *n > hi) {
    return where(v, fmt::format("{} must be an integer from {} to {}", key, lo, hi));
  }
  return *n;
}

Status ApplyStopKey(const Where& where, std::string_view key, const toml::node& value,
                    StopSpec& spec) {
  if (auto statistic = StatisticKey(key)) {
    auto p = PrecisionOf(where, value, key);
    if (!p) return p.error();
    spec.precisions.emplace_back(*statistic, *p);
  } else if (key == "phases") {
    auto phases = PhasesOf(where, value);
    if (!phases) return phases.error();
    spec.phases = std::move(*phases);
  } else if (key == "factors") {
    auto factors = Strings(where, value, "factors");
    if (!factors) return factors.error();
    spec.factors = std::move(*factors);
  } else if (key == "time") {
    auto text = value.value_exact<std::string>();
    auto ns = text ? ParseDuration(*text) : Result<int64_t>(MakeError(ErrorKind::kConfig, ""));
    if (!ns || *ns < 0) {
      return where(value, "time must be a duration (\"5m\", \"300s\"; \"0s\": no time budget)");
    }
    spec.rule.max_seconds = static_cast<double>(*ns) / 1e9;
  } else if (key == "blocks" || key == "min_blocks") {
    auto n = Integer(where, value, key, 3, kMaxBlocks);
    if (!n) return n.error();
    (key == "blocks" ? spec.rule.max_blocks : spec.rule.min_blocks) = static_cast<uint64_t>(*n);
  } else if (key == "confidence") {
    auto c = value.value<double>();
    if (!c || !(*c > 0.5 && *c < 1)) {
      return where(value, "confidence must be a number between 0.5 and 1 (e.g. 0.95)");
    }
    spec.rule.confidence = *c;
  } else if (key == "length") {
    auto text = value.value_exact<std::string>();
    if (!text || (*text != "chosen" && *text != "fixed")) {
      return where(value,
                   "length must be \"chosen\" (the study picks its trial length after its first "
                   "blocks) or \"fixed\" (the trials keep [trials] duration)");
    }
    spec.choose_length = *text == "chosen";
  } else {
    return where(value, fmt::format("unknown key '{}' in [stop] (valid: {})", key, kStopKeys));
  }
  return {};
}

std::string PrecisionText(const Precision& p) {
  return p.kind == Precision::Kind::kRelative ? fmt::format("±{:g} %", p.value * 100)
                                              : "±" + FormatDuration(std::llround(p.value * 1e3));
}

}  // namespace

StopSpec DefaultStop() {
  StopSpec s;
  s.precisions = {{Statistic::kP50, {.kind = Precision::Kind::kRelative, .value = 0.02}},
                  {Statistic::kP99, {.kind = Precision::Kind::kRelative, .value = 0.10}}};
  s.rule.max_seconds = 600;
  s.rule.max_blocks = 100;
  return s;
}

Status ParseStop(const Where& where, const toml::table& root, Scenario& s) {
  const toml::node* node = root.get("stop");
  if (node == nullptr) return {};
  const toml::table* t = node->as_table();
  if (t == nullptr) return where(*node, fmt::format("[stop] must be a table ({})", kStopKeys));
  StopSpec spec = DefaultStop();
  spec.precisions.clear();
  for (const auto& [key, value] : *t) {
    if (Status st = ApplyStopKey(where, key.str(), value, spec); !st) return st;
  }
  if (spec.precisions.empty()) spec.precisions = DefaultStop().precisions;
  std::sort(spec.precisions.begin(), spec.precisions.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (spec.rule.max_blocks < spec.rule.min_blocks) {
    return where(*node, fmt::format("[stop]: blocks ({}) must be at least min_blocks ({})",
                                    spec.rule.max_blocks, spec.rule.min_blocks));
  }
  s.stop = std::move(spec);
  return {};
}

std::string DescribeStop(const StopSpec& spec) {
  std::vector<std::string> precisions, phases;
  for (const auto& [statistic, precision] : spec.precisions) {
    precisions.push_back(fmt::format("{} {}", StatisticName(statistic), PrecisionText(precision)));
  }
  for (Phase p : spec.phases) phases.emplace_back(PhaseName(p));
  std::string budget = fmt::format("{} blocks", spec.rule.max_blocks);
  if (spec.rule.max_seconds > 0) {
    budget = fmt::format("{} or {}",
                         FormatDuration(static_cast<int64_t>(spec.rule.max_seconds * 1e9)), budget);
  }
  return fmt::format(
      "{} of {}; {}; within {}", fmt::join(precisions, ", "), fmt::join(phases, ", "),
      spec.factors.empty() ? "every factor"
                           : fmt::format("factors {}", fmt::join(spec.factors, ", ")),
      budget);
}

}  // namespace pqc::scenario
