#include "report/report_files.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/file_output.h"
#include "report/html_report.h"
#include "report/summary_json.h"
#include "report/text_report.h"

namespace pqc::report {

Result<Format> ParseFormat(const std::string& name) {
  if (name == "table") return Format::kTable;
  if (name == "md" || name == "markdown") return Format::kMarkdown;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  if (name == "html") return Format::kHtml;
  return MakeError(ErrorKind::kUsage,
                   fmt::format("--format {}: unknown (valid: table, md, csv, json, html)", name));
}

Status WriteReport(std::ostream& out, const Summary& summary, Format format) {
  switch (format) {
    case Format::kTable:
      WriteStudyText(out, summary, TextStyle::kTerminal);
      break;
    case Format::kMarkdown:
      WriteStudyText(out, summary, TextStyle::kMarkdown);
      break;
    case Format::kCsv:
      WriteStudyCsv(out, summary);
      break;
    case Format::kJson:
      out << SummaryJson(summary).dump(2) << '\n';
      break;
    case Format::kHtml:
      if (Status st = WriteHtmlReport(summary, out); !st) return st;
      break;
  }
  if (!out) return MakeError(ErrorKind::kIo, "cannot write the report (disk full?)");
  return {};
}

Status WriteReportFiles(const std::string& dir, const Summary& summary) {
  namespace fs = std::filesystem;
  const std::pair<const char*, Format> files[] = {{"summary.json", Format::kJson},
                                                  {"summary.md", Format::kMarkdown},
                                                  {"report.html", Format::kHtml}};
  for (const auto& [name, format] : files) {
    auto out = OutputFile::Create((fs::path(dir) / name).string(), kPublicFile, "report");
    if (!out) return out.error();
    if (Status st = WriteReport(out->stream(), summary, format); !st) return st;
    if (Status st = out->Commit(); !st) return st;
  }
  return {};
}

}  // namespace pqc::report
