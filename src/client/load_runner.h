// load_runner — runs one arm: starts a Worker per thread, shows a live progress line on a
// terminal, stops early (keeping everything measured) on SIGINT/SIGTERM, joins the threads
// and merges their records into one LoadResult.
#pragma once

#include <cstdio>

#include "client/load_options.h"
#include "client/load_result.h"
#include "core/error.h"

namespace pqc {

// RunLoad: `progress` receives the live line (nullptr = quiet).
Result<LoadResult> RunLoad(const LoadOptions& options, std::FILE* progress);

}  // namespace pqc
