// command_output — where a report-like command (report, compare) writes its result: standard
// output, or the file --output names, made beside it and renamed into place once whole
// (core/file_output.h: never through a planted link, never half-written).
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "core/error.h"
#include "core/file_output.h"

namespace pqc::cli {

class CommandOutput {
 public:
  // Open: `path` empty for standard output.
  static Result<CommandOutput> Open(const std::string& path);
  std::ostream& stream();
  // Finish: flushed, and the file (if any) renamed into place; an error says which failed.
  Status Finish();

 private:
  std::optional<OutputFile> file_;
};

}  // namespace pqc::cli
