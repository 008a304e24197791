// load_runner — runs one arm: starts a Worker per thread, shows a live progress line on a
// terminal, stops early (keeping everything measured) on SIGINT/SIGTERM, joins the threads
// and merges their records into one LoadResult.
#pragma once

#include <cstdint>
#include <cstdio>

#include "client/load_options.h"
#include "client/load_result.h"
#include "core/error.h"

namespace pqc {

// DefaultMaxInflight: 10,000 open connections, or fewer if the hard file-descriptor limit
// cannot hold that many (so that defaults never fail on a machine with a low limit).
uint32_t DefaultMaxInflight(unsigned threads);

// RunLoad: `progress` receives the live line (nullptr = quiet).
Result<LoadResult> RunLoad(const LoadOptions& options, std::FILE* progress);

}  // namespace pqc
