#include "core/instruction_window.h"

#if defined(PQC_HAVE_CALLGRIND)
#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>
#endif

namespace pqc {

#if defined(PQC_HAVE_CALLGRIND)

bool CallgrindAvailable() {
  return true;
}

bool UnderCallgrind() {
  return RUNNING_ON_VALGRIND != 0;
}

void ZeroInstructionCounts() {
  CALLGRIND_ZERO_STATS;
}

void DumpInstructionCounts(const std::string& label) {
  CALLGRIND_DUMP_STATS_AT(label.c_str());
}

#else

bool CallgrindAvailable() {
  return false;
}

bool UnderCallgrind() {
  return false;
}

void ZeroInstructionCounts() {}

void DumpInstructionCounts(const std::string&) {}

#endif

}  // namespace pqc
