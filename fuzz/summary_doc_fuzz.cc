// summary_doc_fuzz — libFuzzer target for the summary document reader (ParseSummary), which
// takes summary.json files that may have been edited by hand or written by another version.
// Besides crashes it checks that a refusal carries a message, and that an accepted document
// writes back to one that reads as the same summary (writer and reader agree) and goes
// through every reporter: terminal, Markdown, CSV, JSON and HTML.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "report/report_files.h"
#include "report/summary_json.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto summary = pqc::report::ParseSummary(text);
  if (!summary) {
    Check(!summary.error().message.empty());
    return 0;
  }
  const nlohmann::ordered_json written = pqc::report::SummaryJson(*summary);
  auto again = pqc::report::ReadSummary(written);
  Check(again.ok());
  Check(pqc::report::SummaryJson(*again) == written);
  for (pqc::report::Format format :
       {pqc::report::Format::kTable, pqc::report::Format::kMarkdown, pqc::report::Format::kCsv,
        pqc::report::Format::kJson, pqc::report::Format::kHtml}) {
    std::ostringstream out;
    Check(pqc::report::WriteReport(out, *summary, format).ok());
  }
  return 0;
}
