// report — `pqc-bench report DIR|FILE`: a stored run's results as a terminal table, Markdown,
// CSV, JSON or a self-contained HTML page. Reads only; the statistics are recomputed from
// the raw connections each time, so a report of an interrupted run shows what it has.
#include <fmt/core.h>

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "report/report_files.h"
#include "report/study_summary.h"
#include "results/run_reader.h"
#include "scenario/run_facts.h"

namespace pqc::cli {

int ReportMain(int argc, char** argv) {
  CLI::App app{
      "Print or export the results of a run (a directory under results/, or its "
      "results.sqlite).",
      "pqc-bench report"};
  std::string path, format = "table", output;
  int resamples = 1000;
  bool write = false;
  app.add_option("path", path, "run directory or results.sqlite")->required();
  app.add_option("--format", format, "table | md | csv | json | html")->capture_default_str();
  app.add_option("--output,-o", output, "write to this file instead of standard output");
  app.add_option("--resamples", resamples, "bootstrap resamples per interval")
      ->capture_default_str()
      ->check(CLI::Range(100, 100000));
  app.add_flag("--write", write,
               "(re)write summary.json, summary.md and report.html in the run's directory");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;

  auto fmt_kind = report::ParseFormat(format);
  if (!fmt_kind) return ReportError("report", fmt_kind.error());
  auto db = results::OpenResults(path);
  if (!db) return ReportError("report", db.error());
  auto run = results::ReadRun(*db);
  if (!run) return ReportError("report", run.error());
  scenario::FillStoredNetworkFacts(run->info);  // files of schema versions 1 and 2
  auto summary = report::BuildStudySummary(*db, *run, {.resamples = resamples});
  if (!summary) return ReportError("report", summary.error());
  if (write) {
    const std::string dir = std::filesystem::path(db->path()).parent_path().string();
    if (Status st = report::WriteReportFiles(dir, *summary); !st)
      return ReportError("report", st.error());
  }
  if (output.empty()) {
    if (Status st = report::WriteReport(std::cout, *summary, *fmt_kind); !st) {
      return ReportError("report", st.error());
    }
    return kExitOk;
  }
  std::ofstream out(output, std::ios::trunc);
  if (!out) {
    return ReportError("report",
                       MakeError(ErrorKind::kIo, fmt::format("--output: cannot write {}", output)));
  }
  if (Status st = report::WriteReport(out, *summary, *fmt_kind); !st)
    return ReportError("report", st.error());
  return kExitOk;
}

}  // namespace pqc::cli
