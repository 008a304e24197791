#include "scenario/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace pqc::scenario {
namespace {

constexpr size_t kMaxArms = 10'000;

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Below: an unbiased draw in [0, bound) by rejection (bound > 0).
uint64_t Below(uint64_t& state, uint64_t bound) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  for (;;) {
    const uint64_t x = SplitMix64(state);
    if (x < limit) return x % bound;
  }
}

uint64_t BlockState(uint64_t seed, uint32_t block) {
  return seed ^ (0xD1B54A32D192ED03ULL * (static_cast<uint64_t>(block) + 1));
}

// Shuffle: Fisher–Yates on `v`, drawing from `state`.
void Shuffle(std::vector<uint32_t>& v, uint64_t& state) {
  for (auto i = static_cast<uint32_t>(v.size()); i > 1; --i) {
    const auto j = static_cast<uint32_t>(Below(state, i));
    std::swap(v[i - 1], v[j]);
  }
}

// ServerKeysGiven: the server-side keys this arm was explicitly given by a matrix factor or by
// `run --set` ("factor.key" / "--set key"), for an arm whose server the tool does not run.
std::vector<std::string> ServerKeysGiven(const Scenario& scenario,
                                         const std::vector<const FactorValue*>& values) {
  std::vector<std::string> given;
  for (std::string_view key : ServerSideKeys()) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i]->overrides->contains(key)) {
        given.push_back(fmt::format("matrix.{} sets {}", scenario.factors[i].name, key));
      }
    }
    for (const std::string& k : scenario.set_keys) {
      if (k == key) given.push_back(fmt::format("--set {}", key));
    }
  }
  return given;
}

}  // namespace

Result<std::vector<Arm>> ExpandArms(const Scenario& scenario) {
  size_t total = 1;
  for (const Factor& f : scenario.factors) {
    total *= f.values.size();
    if (total > kMaxArms) {
      return MakeError(ErrorKind::kConfig,
                       fmt::format("{}: the matrix has more than {} arms; split the study",
                                   scenario.file, kMaxArms));
    }
  }
  std::vector<Arm> arms;
  arms.reserve(total);
  std::vector<size_t> index(scenario.factors.size(), 0);
  for (size_t n = 0; n < total; ++n) {
    Arm arm;
    arm.id = static_cast<uint32_t>(n + 1);
    arm.settings = scenario.base;
    std::string label;
    std::vector<const FactorValue*> values;
    for (size_t i = 0; i < scenario.factors.size(); ++i) {
      const Factor& f = scenario.factors[i];
      const FactorValue& v = f.values[index[i]];
      values.push_back(&v);
      arm.factors.emplace_back(f.name, v.label);
      if (f.values.size() > 1) label += fmt::format("{}{}", label.empty() ? "" : " · ", v.label);
      for (const auto& [key, value] : *v.overrides) {
        // Checked when the scenario was parsed; a failure here would be a parser bug.
        if (Status st = FindSettingKey(key.str())->apply(value, arm.settings); !st) {
          return MakeError(ErrorKind::kConfig,
                           fmt::format("matrix.{} = {}: {}", f.name, v.label, st.error().message));
        }
      }
    }
    arm.label = label.empty() ? "base" : label;
    if (Status st = Validate(arm.settings, arm.label); !st) {
      return MakeError(ErrorKind::kConfig,
                       fmt::format("{}: {}", scenario.file, st.error().message));
    }
    // A server the tool does not run cannot be configured by it: an explicit server-side
    // choice would be reported as if applied. (The file's base values are stored as "as the
    // server is configured" instead.)
    if (!ToolRunsServer(arm.settings)) {
      if (auto given = ServerKeysGiven(scenario, values); !given.empty()) {
        return MakeError(
            ErrorKind::kConfig,
            fmt::format("{}: arm '{}' runs against the external server {}, which the tool does "
                        "not configure, yet {}; remove {} for that target (the server's own "
                        "chain, groups, tickets and cache are what it measures)",
                        scenario.file, arm.label, arm.settings.address.text, fmt::join(given, ", "),
                        given.size() == 1 ? "it" : "them"));
      }
    }
    arms.push_back(std::move(arm));
    // Odometer: the last factor varies fastest.
    for (size_t i = scenario.factors.size(); i-- > 0;) {
      if (++index[i] < scenario.factors[i].values.size()) break;
      index[i] = 0;
    }
  }
  return arms;
}

std::vector<uint32_t> BlockOrder(uint32_t n, uint64_t seed, uint32_t block) {
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  uint64_t state = BlockState(seed, block);
  Shuffle(order, state);
  return order;
}

std::string AdjacentFactor(const Scenario& scenario) {
  std::string factor = scenario.adjacent;
  if (factor.empty() && scenario.stop && scenario.stop->factors.size() == 1) {
    factor = scenario.stop->factors.front();
  }
  if (factor.empty()) factor = kBuildFactor;
  for (const Factor& f : scenario.factors) {
    if (f.name == factor) return f.values.size() > 1 ? factor : std::string();
  }
  return {};
}

std::vector<uint32_t> BlockOrder(const std::vector<Arm>& arms, const std::string& adjacent,
                                 uint64_t seed, uint32_t block) {
  const auto n = static_cast<uint32_t>(arms.size());
  if (adjacent.empty()) return BlockOrder(n, seed, block);
  // The groups, in matrix order of their first arm: arms alike in every other factor.
  std::vector<std::vector<std::pair<std::string, std::string>>> keys;
  std::vector<std::vector<uint32_t>> groups;
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<std::pair<std::string, std::string>> key;
    for (const auto& fv : arms[i].factors) {
      if (fv.first != adjacent) key.push_back(fv);
    }
    const auto at = std::find(keys.begin(), keys.end(), key);
    if (at == keys.end()) {
      keys.push_back(std::move(key));
      groups.push_back({i});
    } else {
      groups[static_cast<size_t>(at - keys.begin())].push_back(i);
    }
  }
  std::vector<uint32_t> group_order(groups.size());
  for (uint32_t g = 0; g < group_order.size(); ++g) group_order[g] = g;
  uint64_t state = BlockState(seed, block);
  Shuffle(group_order, state);
  std::vector<uint32_t> order;
  order.reserve(n);
  for (uint32_t g : group_order) {
    Shuffle(groups[g], state);
    order.insert(order.end(), groups[g].begin(), groups[g].end());
  }
  return order;
}

Result<Plan> MakePlan(const Scenario& scenario) {
  auto arms = ExpandArms(scenario);
  if (!arms) return arms.error();
  Plan plan;
  plan.arms = std::move(*arms);
  plan.adjacent = AdjacentFactor(scenario);
  uint32_t seq = 0;
  for (uint32_t b = 0; b < scenario.trials; ++b) {
    for (uint32_t i : BlockOrder(plan.arms, plan.adjacent, scenario.seed, b)) {
      plan.trials.push_back({plan.arms[i].id, b, seq++});
    }
  }
  return plan;
}

}  // namespace pqc::scenario
