#include "cli/command.h"

#include <fmt/core.h>

#include <cstdio>

namespace pqc::cli {

int ReportError(const char* command, const Error& error) {
  fmt::print(stderr, "pqc-bench {}: error: {}\n", command, error.message);
  switch (error.kind) {
    case ErrorKind::kUsage:
    case ErrorKind::kConfig:
    case ErrorKind::kUnsupported:
      return kExitUsage;
    default:
      return kExitFailure;
  }
}

int ParseArgs(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  return -1;
}

}  // namespace pqc::cli
