#include "cli/probe_compare.h"

#include <fmt/core.h>

#include <array>
#include <iostream>
#include <span>
#include <string_view>

#include "cli/command.h"
#include "cli/command_output.h"
#include "report/probe_diff.h"
#include "report/probe_diff_output.h"

namespace pqc::cli {
namespace {

// The options of a run comparison, which mean nothing for probes: refused by name rather
// than ignored. Like the probe comparison's own options that take a value, their values are
// skipped when deciding which comparison the command line asks for (a value taken for an
// input only makes the line look like a run comparison, which then reports its own error).
constexpr std::string_view kRunOnlyFlags[] = {"--baseline", "--fail-if", "--resamples"};
constexpr std::string_view kValueFlags[] = {"--format", "--output", "-o"};

bool IsFlag(std::string_view arg, std::string_view flag) {
  return arg == flag || (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag &&
                         arg[flag.size()] == '=');
}

}  // namespace

bool IsProbeComparison(int argc, char** argv) {
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) inputs.emplace_back(argv[i]);
      break;
    }
    if (!arg.empty() && arg.front() == '-') {
      for (const auto& flags : {std::span(kValueFlags), std::span(kRunOnlyFlags)}) {
        for (std::string_view flag : flags) {
          if (arg == flag) ++i;  // its value follows (`--flag=value` is one argument)
        }
      }
      continue;
    }
    inputs.emplace_back(arg);
  }
  if (inputs.empty()) return false;
  for (const std::string& input : inputs) {
    if (!report::HoldsJsonObject(input)) return false;
  }
  return true;
}

int CompareProbesMain(int argc, char** argv) {
  CLI::App app{
      "Compare two probe documents (pqc-bench probe --json) of two OpenSSL builds: which "
      "algorithms changed at which layer, and the builds' facts.",
      "pqc-bench compare"};
  for (int i = 1; i < argc; ++i) {
    for (std::string_view flag : kRunOnlyFlags) {
      if (IsFlag(argv[i], flag)) {
        return ReportError("compare",
                           MakeError(ErrorKind::kUsage, fmt::format("{} applies to stored runs; a "
                                                                    "comparison of probe documents "
                                                                    "takes --format and --output",
                                                                    flag)));
      }
    }
  }
  ProbeCompareRequest request;
  app.add_option("probes", request.files, "two probe documents (first, second)")->required();
  app.add_option("--format", request.format, "table | md | json")->capture_default_str();
  app.add_option("--output,-o", request.output, "write to this file instead of standard output");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (request.files.size() != 2) {
    return ReportError(
        "compare", MakeError(ErrorKind::kUsage, fmt::format("compare two probe documents, not {}",
                                                            request.files.size())));
  }
  return CompareProbeFiles("compare", request);
}

int CompareProbeFiles(const char* command, const ProbeCompareRequest& request) {
  auto format = report::ParseFormat(request.format);
  if (!format) return ReportError(command, format.error());
  std::vector<report::ProbeDocument> docs;
  std::array<std::string, 2> labels;
  for (const std::string& file : request.files) {
    auto doc = report::ReadProbeDocument(file);
    if (!doc) return ReportError(command, doc.error());
    labels[docs.size()] = file;
    docs.push_back(std::move(*doc));
  }
  if (docs.size() == 1 && request.live) {
    docs.push_back(request.live());
    labels[1] = fmt::format("this build ({})", docs.back().openssl);
  }
  if (docs.size() != 2) {
    return ReportError(command, MakeError(ErrorKind::kUsage, "compare two probe documents"));
  }
  const report::ProbeDiff diff = report::DiffProbes(docs[0], docs[1], labels);
  auto output = CommandOutput::Open(request.output);
  if (!output) return ReportError(command, output.error());
  if (Status st = report::WriteProbeDiff(output->stream(), diff, *format); !st) {
    return ReportError(command, st.error());
  }
  if (Status st = output->Finish(); !st) return ReportError(command, st.error());
  return kExitOk;
}

}  // namespace pqc::cli
