// stage_attribution — a profile's instructions split into the handshake's stages
// (stage_table.h): every executed instruction belongs to the stage of the context it runs in,
// and the more specific stage wins, by priority.
//
// Contexts. A root function (no caller but itself) runs in kRest. Inside a function f called
// from g, the context is g's, unless f is an entry of stage t (EntryStage) and t's priority is
// higher, then t. Ctx(f) is the set of contexts f runs in over all its callers, a fixed point
// over the call graph (cycles included); a function nothing reaches (a cycle without a root)
// runs in kRest.
//
// Costs. Everything starts in kRest (the profile's totals). Each call edge g→f into an entry
// that changes the context moves the edge's inclusive cost — f and all below it — from g's
// context to f's. Nested entries compose: rest→sign moves sign's whole inclusive cost to
// kSign, then sign→verify inside it moves verify's part on to kVerify. Every move takes from
// one stage what it gives to another, so the stages sum to the totals exactly, whatever the
// graph. The split itself is exact when each caller of an entry runs in one context: the edge's
// inclusive cost is then wholly that context's. When a caller runs in several (a helper called
// from both the event loop and a signature), callgrind's per-edge sums cannot say which share
// belongs to which: the cost is moved from the caller's lowest-priority context (everything
// starts in kRest, so that is where most of it is) and counted in `ambiguous_ir`.
//
// Kernel. Every system call is kernel work: the entries' edges carry system calls (sysCount)
// into the stages as they carry instructions, so after the moves each stage holds the calls its
// own code made, and all of them move to kKernel (`syscalls_from` keeps where they came from).
// Instructions move to kKernel only from a system call's wrapper — a function that makes system
// calls itself with at most kWrapperIrPerSyscall instructions of its own per call — and only
// its own instructions, never its callees': start_thread and pthread_once make a system call on
// the way to other work, which stays in their callers' stages, and free's bookkeeping is not
// kernel work. So kKernel is never a context. A wrapper's instructions are shared among its call
// edges in proportion to their inclusive costs: exact for a wrapper that calls nothing, an
// estimate (counted ambiguous) for one that calls on from callers in several contexts.
#pragma once

#include <cstdint>
#include <vector>

#include "count/callgrind_profile.h"
#include "count/stage_table.h"

namespace pqc::count {

// kWrapperIrPerSyscall: a system call's wrapper runs tens of instructions per call (glibc's
// read, write, epoll_wait: 17 to 60); above this, the instructions are the function's own work.
inline constexpr uint64_t kWrapperIrPerSyscall = 1000;

struct StageCost {
  Stage stage;
  EventCosts cost;
};

struct Attribution {
  std::vector<StageCost> stages;  // every stage, Stages() order; sum of ir == total.ir exactly
  EventCosts total;               // the profile's totals
  // Instructions moved on a guess: out of a caller with several contexts, a kernel entry's own
  // cost shared among contexts by proportion, or a move larger than what its source stage held
  // (recursion through an entry, or an inconsistent file), which is clamped to what was there.
  uint64_t ambiguous_ir = 0;
  // Per stage (Stages() order), what its code's system calls cost before they moved to
  // kKernel: the wrappers' instructions (ir) and the calls made (syscalls).
  std::vector<StageCost> syscalls_from;
};

Attribution Attribute(const Profile& profile);

}  // namespace pqc::count
