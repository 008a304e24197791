// merge — `pqc-bench merge RUNDIR... -o DIR`: the shards of one sharded study (each shard's
// run directory) as one results database, every connection kept with its shard, each trial's
// statistics computed from the union; then the study's table and files, as `run` writes them.
#include "scenario/merge.h"

#include <fmt/core.h>

#include <algorithm>

#include "cli/command.h"
#include "cli/study_output.h"

namespace pqc::cli {

int MergeMain(int argc, char** argv) {
  CLI::App app{
      "Merge the shards of a sharded study (run --shard) into one results database: "
      "every connection and request kept with its shard, statistics from the union.",
      "pqc-bench merge"};
  scenario::MergeOptions o;
  app.add_option("runs", o.inputs, "every shard's run directory (or results.sqlite)")
      ->required()
      ->check(CLI::ExistingPath);
  app.add_option("-o,--out", o.out_dir, "directory of the merged database (created)")->required();
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  auto out = scenario::MergeShards(o);
  if (!out) return ReportError("merge", out.error());
  fmt::print(stderr, "merged {} shards: {} trials ({} invalid), {} connections{}\n", out->shards,
             out->trials, out->trials_invalid, out->connections,
             out->complete ? "" : " — INCOMPLETE: a shard's run did not finish");
  // The report from the unions merge holds already: every row read once, not twice.
  report::LoadedTrials loaded;
  for (const auto& [id, m] : out->loaded) loaded[id] = &m->load;
  auto stored = PrintStudy(out->dir, &loaded);
  if (!stored) return ReportError("merge", stored.error());
  const bool any_valid = std::any_of(stored->trials.begin(), stored->trials.end(),
                                     [](const results::StoredTrial& t) { return t.valid; });
  if (!any_valid) {
    fmt::print(stderr,
               "merge: no trial is valid in the merged study; see the reasons above "
               "(exit status 1)\n");
    return kExitInvalid;
  }
  return out->complete ? kExitOk : kExitInvalid;
}

}  // namespace pqc::cli
