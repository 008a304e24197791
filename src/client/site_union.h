// site_union — the loads of one trial's client sites as one LoadResult. Each site's load runs
// in its own network namespace as lane group `site` of the arm's schedule (so together they
// are the arm's one schedule, each site an equal share), all started at one barrier; the
// trial's statistics and checks are those of the union, like a merge of shards, and every
// connection keeps the site it came from.
#pragma once

#include <vector>

#include "records/load_options.h"
#include "records/load_result.h"

namespace pqc {

// UniteSites: sites[k]'s connections get site = k and ids unique across sites (site k's in
// the k-th block of 2^56); requests are re-indexed; CPU, threads, skipped and unfinished add
// up; the window is the widest; the start lateness the worst; `options` (the whole arm's)
// becomes the union's. Records end up in intended-start order, as RunLoad leaves them.
LoadResult UniteSites(std::vector<LoadResult> sites, const LoadOptions& options);

}  // namespace pqc
