// build_commit — the commit this binary was built from (`git rev-parse --short HEAD` at
// configure time, "unknown" outside a checkout), printed by --version and stored with each run.
#pragma once

namespace pqc {

const char* BuildCommit();

}  // namespace pqc
