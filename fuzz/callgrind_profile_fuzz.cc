// callgrind_profile_fuzz — libFuzzer target for the callgrind reader (count/callgrind_profile.h)
// and the stage attribution that `count` runs on what it reads. Besides crashes, hangs and
// overflows it checks what the callers rely on: a refused file says why; an accepted one has
// call edges that index its functions and totals equal to its self costs; and its attribution
// splits exactly the totals, whatever the graph (cycles, an entry reached from several
// contexts, inclusive costs that contradict the self costs).
//
// Input: the text of a callgrind file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "count/callgrind_profile.h"
#include "count/stage_attribution.h"
#include "count/stage_table.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto profile = pqc::count::ParseCallgrind(text, "fuzz.out");
  if (!profile) {
    Check(!profile.error().message.empty());
    return 0;
  }
  pqc::count::EventCosts self;
  for (const pqc::count::ProfileFunction& f : profile->functions) {
    self.ir += f.self.ir;  // no wrap: the reader refuses sums beyond 64 bits
    self.syscalls += f.self.syscalls;
  }
  Check(self.ir == profile->totals.ir && self.syscalls == profile->totals.syscalls);
  for (const pqc::count::ProfileCall& c : profile->calls) {
    Check(c.caller < profile->functions.size() && c.callee < profile->functions.size());
  }

  const pqc::count::Attribution a = pqc::count::Attribute(*profile);
  Check(a.stages.size() == pqc::count::Stages().size());
  Check(a.syscalls_from.size() == pqc::count::Stages().size());
  pqc::count::EventCosts sum, from;
  for (size_t i = 0; i < a.stages.size(); ++i) {
    Check(a.stages[i].stage == pqc::count::Stages()[i].stage);
    // each ≤ the total, so that the sums below cannot wrap into a false match
    Check(a.stages[i].cost.ir <= a.total.ir && a.stages[i].cost.syscalls <= a.total.syscalls);
    sum.ir += a.stages[i].cost.ir;
    sum.syscalls += a.stages[i].cost.syscalls;
    from.syscalls += a.syscalls_from[i].cost.syscalls;
  }
  Check(sum.ir == a.total.ir && sum.syscalls == a.total.syscalls);
  Check(a.total.ir == profile->totals.ir);
  // Every system call is the kernel's, and came from some stage.
  const size_t kernel = static_cast<size_t>(pqc::count::Stage::kKernel);
  Check(a.stages[kernel].cost.syscalls == a.total.syscalls && from.syscalls == a.total.syscalls);
  return 0;
}
