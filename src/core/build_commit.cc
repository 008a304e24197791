// The only file compiled with the commit (src/CMakeLists.txt): a new commit recompiles this
// line and nothing else, so the compiler cache still serves main.cc and run_facts.cc.
#include "core/build_commit.h"

namespace pqc {

const char* BuildCommit() {
  return PQC_GIT_COMMIT;
}

}  // namespace pqc
