// probe_doc_fuzz — libFuzzer target for the probe document reader (ParseProbeDocument), which
// takes `probe --json` files written by other builds, other versions or by hand, given to
// `compare` or `probe --compare`. Besides crashes it checks that a refusal carries a message,
// that an accepted document writes back to one that reads as the same record, and that its
// comparison with itself and with the written copy finds nothing changed and goes through
// every reporter.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "report/probe_diff.h"
#include "report/probe_diff_output.h"
#include "report/probe_doc.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = pqc::report::ParseProbeDocument(text);
  if (!doc) {
    Check(!doc.error().message.empty());
    return 0;
  }
  auto again = pqc::report::ParseProbeDocument(pqc::report::ProbeToJson(*doc).dump());
  Check(again.ok());
  Check(*again == *doc);
  const pqc::report::ProbeDiff diff = pqc::report::DiffProbes(*doc, *again, {"a", "b"});
  Check(!diff.AnyLayerChanged() && diff.changes.empty() && diff.only_in.empty());
  Check(diff.common == doc->groups.size() + doc->signatures.size());
  for (pqc::report::Format format :
       {pqc::report::Format::kTable, pqc::report::Format::kMarkdown, pqc::report::Format::kJson}) {
    std::ostringstream out;
    Check(pqc::report::WriteProbeDiff(out, diff, format).ok());
  }
  return 0;
}
