// probe_compare — two probe documents compared (which algorithms changed at which layer, and
// the two builds' facts), for `pqc-bench compare A.json B.json` when every input is a probe
// document, and for `pqc-bench probe --compare A.json [B.json]`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report/probe_doc.h"

namespace pqc::cli {

// IsProbeComparison: compare's inputs (its arguments that are not flags or flag values) are
// all files holding a JSON object — probe documents, or meant to be (their parse errors then
// name the file and field) — rather than run directories or results.sqlite files.
bool IsProbeComparison(int argc, char** argv);

// CompareProbesMain: `pqc-bench compare PROBE.json PROBE.json [--format] [-o]`.
int CompareProbesMain(int argc, char** argv);

struct ProbeCompareRequest {
  std::vector<std::string> files;  // one or two probe documents
  std::string format = "table";    // table | md | json
  std::string output;              // "" = standard output
  // With one file: probes this build, compared with the file as the second (called once the
  // file has been read, so that a bad file is refused before the probe's handshakes).
  std::function<report::ProbeDocument()> live;
};

// CompareProbeFiles: reads, compares and writes; returns the exit status (errors printed once
// as `command`'s).
int CompareProbeFiles(const char* command, const ProbeCompareRequest& request);

}  // namespace pqc::cli
