#include "count/stage_attribution.h"

#include <algorithm>
#include <bit>
#include <optional>

namespace pqc::count {

namespace {

constexpr size_t kStageCount = static_cast<size_t>(Stage::kRest) + 1;

// Contexts: a set of stages, one bit each.
using Contexts = uint16_t;
static_assert(kStageCount <= 16, "Contexts holds one bit per stage");

Contexts Bit(Stage s) {
  return static_cast<Contexts>(1u << static_cast<unsigned>(s));
}
int Priority(Stage s) {
  return StageOf(s).priority;
}

// Inside: the contexts inside a function that is an entry of `entry` (if any), called from
// code running in `from`.
Contexts Inside(Contexts from, std::optional<Stage> entry) {
  if (!entry) return from;
  Contexts inside = 0;
  for (const StageInfo& info : Stages()) {
    if ((from & Bit(info.stage)) == 0) continue;
    inside |= Priority(*entry) > info.priority ? Bit(*entry) : Bit(info.stage);
  }
  return inside;
}

// Lowest: the lowest-priority stage of a set (on a tie, the first in Stages()); kRest when
// empty, which no function's contexts are once ContextsOf is done.
Stage Lowest(Contexts set) {
  std::optional<Stage> lowest;
  for (const StageInfo& info : Stages()) {
    if ((set & Bit(info.stage)) != 0 && (!lowest || info.priority < Priority(*lowest))) {
      lowest = info.stage;
    }
  }
  return lowest.value_or(Stage::kRest);
}

// CallGraph: per function, whom it calls and the edges that call it, self calls left out
// (recursion changes no context and moves nothing).
struct CallGraph {
  std::vector<std::vector<size_t>> callees;   // function indexes
  std::vector<std::vector<size_t>> incoming;  // indexes into Profile::calls
};

CallGraph GraphOf(const Profile& profile) {
  CallGraph g;
  g.callees.resize(profile.functions.size());
  g.incoming.resize(profile.functions.size());
  for (size_t i = 0; i < profile.calls.size(); ++i) {
    const ProfileCall& c = profile.calls[i];
    if (c.caller == c.callee) continue;
    g.callees[c.caller].push_back(c.callee);
    g.incoming[c.callee].push_back(i);
  }
  return g;
}

std::vector<std::optional<Stage>> EntryStages(const Profile& profile) {
  std::vector<std::optional<Stage>> entries;
  entries.reserve(profile.functions.size());
  for (const ProfileFunction& f : profile.functions) entries.push_back(EntryStage(f.name));
  return entries;
}

// ContextsOf: Ctx(f) for every function, by a worklist to the fixed point. A set only grows
// (at most once per stage), so the loop ends on any graph, cycles included.
std::vector<Contexts> ContextsOf(const CallGraph& graph,
                                 const std::vector<std::optional<Stage>>& entries) {
  const size_t n = entries.size();
  std::vector<Contexts> ctx(n, 0);
  std::vector<size_t> work;
  auto propagate = [&] {
    while (!work.empty()) {
      const size_t g = work.back();
      work.pop_back();
      for (size_t f : graph.callees[g]) {
        const Contexts grown = ctx[f] | Inside(ctx[g], entries[f]);
        if (grown != ctx[f]) {
          ctx[f] = grown;
          work.push_back(f);
        }
      }
    }
  };
  for (size_t f = 0; f < n; ++f) {
    if (graph.incoming[f].empty()) {
      ctx[f] = Bit(Stage::kRest);
      work.push_back(f);
    }
  }
  propagate();
  // What no root reaches (a cycle entered from nowhere, as a window's dump can hold) runs in
  // kRest, like a root: seeded one function at a time, so that the rest of its cycle takes its
  // contexts from it.
  for (size_t f = 0; f < n; ++f) {
    if (ctx[f] == 0) {
      ctx[f] = Bit(Stage::kRest);
      work.push_back(f);
      propagate();
    }
  }
  return ctx;
}

struct Move {
  Stage from;
  Stage to;
  EventCosts cost;
  bool ambiguous;  // `from` or the amount is a guess
};

// AddEntryMoves: one per call edge into an entry that changes its caller's context.
void AddEntryMoves(const Profile& profile, const std::vector<std::optional<Stage>>& entries,
                   const std::vector<Contexts>& ctx, std::vector<Move>* moves) {
  for (const ProfileCall& c : profile.calls) {
    const std::optional<Stage> to = entries[c.callee];
    if (c.caller == c.callee || !to) continue;
    const Stage from = Lowest(ctx[c.caller]);
    if (Priority(*to) <= Priority(from)) continue;
    moves->push_back({from, *to, c.inclusive, std::popcount(ctx[c.caller]) > 1});
  }
}

// Split: `amount` shared in proportion to `weights` (equally when they are all 0), the
// rounding's remainder to the largest, so that the shares sum to `amount` exactly.
std::vector<uint64_t> Split(uint64_t amount, const std::vector<uint64_t>& weights) {
  __extension__ typedef unsigned __int128 Wide;  // amount × weight needs 128 bits
  std::vector<uint64_t> shares(weights.size(), 0);
  if (shares.empty()) return shares;
  Wide sum = 0;
  for (uint64_t w : weights) sum += w;
  uint64_t given = 0;
  size_t largest = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const Wide weight = sum == 0 ? 1 : weights[i];
    const Wide whole = sum == 0 ? weights.size() : sum;
    shares[i] = static_cast<uint64_t>(static_cast<Wide>(amount) * weight / whole);
    given += shares[i];  // Σ of rounded-down shares ≤ amount: no overflow
    if (weights[i] > weights[largest]) largest = i;
  }
  shares[largest] += amount - given;
  return shares;
}

// AddKernelMoves: the own instructions of each system call wrapper (header comment) move to
// kKernel, from the context each of its call edges runs it in, shared among the edges in
// proportion to their inclusive cost. (The system calls themselves move in Attribute.)
void AddKernelMoves(const Profile& profile, const CallGraph& graph,
                    const std::vector<std::optional<Stage>>& entries,
                    const std::vector<Contexts>& ctx, std::vector<Move>* moves) {
  for (size_t f = 0; f < profile.functions.size(); ++f) {
    const EventCosts& self = profile.functions[f].self;
    if (self.syscalls == 0 || self.ir / self.syscalls > kWrapperIrPerSyscall) continue;
    const std::vector<size_t>& in = graph.incoming[f];
    if (in.empty()) {  // a root: its own code runs in its own contexts
      moves->push_back({Lowest(ctx[f]), Stage::kKernel, {self.ir, 0}, std::popcount(ctx[f]) > 1});
      continue;
    }
    std::vector<Contexts> runs_in;
    std::vector<uint64_t> weights;
    for (size_t e : in) {
      runs_in.push_back(Inside(ctx[profile.calls[e].caller], entries[f]));
      weights.push_back(profile.calls[e].inclusive.ir);
    }
    // A proportional share is exact for a wrapper that calls nothing (each edge's inclusive
    // cost is its own); for one that calls on, it is a guess unless all share one context.
    const bool mixed = std::any_of(runs_in.begin(), runs_in.end(),
                                   [&](Contexts s) { return Lowest(s) != Lowest(runs_in[0]); });
    const bool guess = mixed && !graph.callees[f].empty();
    const std::vector<uint64_t> shares = Split(self.ir, weights);
    for (size_t i = 0; i < in.size(); ++i) {
      moves->push_back({Lowest(runs_in[i]),
                        Stage::kKernel,
                        {shares[i], 0},
                        guess || std::popcount(runs_in[i]) > 1});
    }
  }
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

Attribution Attribute(const Profile& profile) {
  const CallGraph graph = GraphOf(profile);
  const std::vector<std::optional<Stage>> entries = EntryStages(profile);
  const std::vector<Contexts> ctx = ContextsOf(graph, entries);
  std::vector<Move> moves;
  AddEntryMoves(profile, entries, ctx, &moves);
  AddKernelMoves(profile, graph, entries, ctx, &moves);
  // A stage receives only from lower priorities and gives only to higher ones: taking the
  // moves by their source's priority, a stage holds all it will receive before it gives.
  std::stable_sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) {
    return Priority(a.from) < Priority(b.from);
  });

  Attribution a;
  a.total = profile.totals;
  std::vector<EventCosts> held(kStageCount), to_kernel(kStageCount);
  held[static_cast<size_t>(Stage::kRest)] = profile.totals;
  for (const Move& m : moves) {
    EventCosts& from = held[static_cast<size_t>(m.from)];
    EventCosts& to = held[static_cast<size_t>(m.to)];
    // Clamped to what the source holds: an edge's inclusive cost can exceed it when recursion
    // through an entry counts the same instructions twice, or when the guess of an ambiguous
    // move took from the wrong context. A stage never goes negative; the shortfall is
    // counted as ambiguous, and the stages still sum to the total.
    const EventCosts take{std::min(m.cost.ir, from.ir), std::min(m.cost.syscalls, from.syscalls)};
    a.ambiguous_ir = SaturatingAdd(a.ambiguous_ir, m.cost.ir - take.ir);
    if (m.ambiguous) a.ambiguous_ir = SaturatingAdd(a.ambiguous_ir, take.ir);
    from.ir -= take.ir;
    from.syscalls -= take.syscalls;
    to.ir += take.ir;  // no overflow: the stages' sum stays the total
    to.syscalls += take.syscalls;
    if (m.to == Stage::kKernel) {
      // kKernel is never a source, so these sum to at most what it holds.
      EventCosts& source = to_kernel[static_cast<size_t>(m.from)];
      source.ir += take.ir;
      source.syscalls += take.syscalls;
    }
  }
  // Every system call is kernel work, and after the moves each stage holds those its code made
  // (the entries' edges carried them in with the instructions, and as exactly): no new guess
  // here, even where a wrapper's caller runs in several contexts.
  const size_t kernel = static_cast<size_t>(Stage::kKernel);
  for (size_t i = 0; i < kStageCount; ++i) {
    if (i == kernel) continue;
    to_kernel[i].syscalls += held[i].syscalls;
    held[kernel].syscalls += held[i].syscalls;
    held[i].syscalls = 0;
  }
  for (const StageInfo& info : Stages()) {
    const size_t i = static_cast<size_t>(info.stage);
    a.stages.push_back({info.stage, held[i]});
    a.syscalls_from.push_back({info.stage, to_kernel[i]});
  }
  return a;
}

}  // namespace pqc::count
