// load_runner — runs one arm: starts a Worker per thread, shows a live progress line on a
// terminal, stops early (keeping everything measured) on SIGINT/SIGTERM, joins the threads
// and merges their records into one LoadResult.
#pragma once

#include <cstdint>
#include <cstdio>

#include "records/load_options.h"
#include "records/load_result.h"
#include "core/error.h"

namespace pqc {

// RunLoad: `progress` receives the live line (nullptr = quiet). Refuses to start when the
// file-descriptor limit cannot hold the arm's worst case (client/fd_limit.h).
Result<LoadResult> RunLoad(const LoadOptions& options, std::FILE* progress);

}  // namespace pqc
