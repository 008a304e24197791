// report — `pqc-bench report DIR|FILE`: a stored run's results as a terminal table, Markdown,
// CSV, JSON or a self-contained HTML page. Reads only; the statistics are recomputed from
// the raw connections each time, so a report of an interrupted run shows what it has.
#include <fmt/core.h>

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/command_output.h"
#include "cli/count_compare.h"
#include "cli/count_output.h"
#include "count/count_report_json.h"
#include "report/client_summary.h"
#include "report/report_files.h"
#include "report/study_summary.h"
#include "results/run_reader.h"
#include "scenario/run_facts.h"

namespace pqc::cli {
namespace {

// ReportClients: `report --clients FILE`, the observatory's summary by client.
int ReportClients(const std::string& file, const std::string& format, const std::string& output) {
  if (format != "table" && format != "md" && format != "json" && format != "html") {
    return ReportError(
        "report", MakeError(ErrorKind::kUsage, fmt::format("--format {} with --clients (valid: "
                                                           "table, md, json, html)",
                                                           format)));
  }
  auto rows = results::ReadClientLog(file);
  if (!rows) return ReportError("report", rows.error());
  const report::ClientSummary s = report::SummarizeClients(*rows, file);
  auto output_file = CommandOutput::Open(output);
  if (!output_file) return ReportError("report", output_file.error());
  std::ostream& out = output_file->stream();
  if (format == "json") {
    out << report::ClientSummaryJson(s).dump(2) << "\n";
  } else if (format == "html") {
    report::WriteClientSummaryHtml(out, s);
  } else {
    report::WriteClientSummaryTable(out, s, format == "md");
  }
  if (Status st = output_file->Finish(); !st) return ReportError("report", st.error());
  return kExitOk;
}

}  // namespace

namespace {

// ReportCount: a `pqc-bench count` result's tables again (table or md), or its JSON.
int ReportCount(const std::string& path, const std::string& format, const std::string& output) {
  if (format != "table" && format != "json") {
    return ReportError(
        "report", MakeError(ErrorKind::kUsage, fmt::format("--format {}: a count result is written "
                                                           "as table or json",
                                                           format)));
  }
  auto r = ReadCountResult(path);
  if (!r) return ReportError("report", r.error());
  auto out = CommandOutput::Open(output);
  if (!out) return ReportError("report", out.error());
  if (format == "json") {
    out->stream() << count::CountReportJson(*r).dump(2) << "\n";
  } else {
    WriteCountTables(out->stream(), *r);
  }
  if (Status st = out->Finish(); !st) return ReportError("report", st.error());
  return kExitOk;
}

}  // namespace

int ReportMain(int argc, char** argv) {
  CLI::App app{
      "Print or export the results of a run (a directory under results/, or its "
      "results.sqlite).",
      "pqc-bench report"};
  std::string path, format = "table", output, clients;
  int resamples = 1000;
  bool write = false;
  auto* path_opt = app.add_option("path", path, "run directory or results.sqlite");
  app.add_option("--clients", clients,
                 "instead of a run: summarise the client log `serve --clients FILE` wrote, by "
                 "client (table, md, json or html)")
      ->excludes(path_opt);
  app.add_option("--format", format, "table | md | csv | json | html")->capture_default_str();
  app.add_option("--output,-o", output, "write to this file instead of standard output");
  app.add_option("--resamples", resamples, "bootstrap resamples per interval")
      ->capture_default_str()
      ->check(CLI::Range(100, 100000));
  app.add_flag("--write", write,
               "(re)write summary.json, summary.md and report.html in the run's directory");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (!clients.empty()) return ReportClients(clients, format, output);
  if (!path.empty() && IsCountResult(path)) return ReportCount(path, format, output);
  if (path.empty()) {
    return ReportError("report", MakeError(ErrorKind::kUsage,
                                           "give a run directory (or its results.sqlite), or "
                                           "--clients FILE"));
  }

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
  auto out = CommandOutput::Open(output);
  if (!out) return ReportError("report", out.error());
  if (Status st = report::WriteReport(out->stream(), *summary, *fmt_kind); !st) {
    return ReportError("report", st.error());
  }
  if (Status st = out->Finish(); !st) return ReportError("report", st.error());
  return kExitOk;
}

}  // namespace pqc::cli
