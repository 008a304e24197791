#include "cli/command_output.h"

#include <iostream>

namespace pqc::cli {

Result<CommandOutput> CommandOutput::Open(const std::string& path) {
  CommandOutput out;
  if (path.empty()) return out;
  auto file = OutputFile::Create(path, kPublicFile, "--output");
  if (!file) return file.error();
  out.file_ = std::move(*file);
  return out;
}

std::ostream& CommandOutput::stream() {
  return file_ ? file_->stream() : std::cout;
}

Status CommandOutput::Finish() {
  if (file_) return file_->Commit();
  std::cout.flush();
  if (!std::cout) return MakeError(ErrorKind::kIo, "cannot write to standard output");
  return {};
}

}  // namespace pqc::cli
