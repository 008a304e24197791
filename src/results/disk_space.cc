#include "results/disk_space.h"

#include <fmt/format.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>

namespace pqc::results {
namespace {

std::string Megabytes(uint64_t bytes) {
  return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
}

}  // namespace

Result<uint64_t> FreeBytes(const std::string& dir) {
  struct statvfs st {};
  if (statvfs(dir.c_str(), &st) != 0) {
    return MakeError(ErrorKind::kIo, fmt::format("statvfs {}: {}", dir, strerror(errno)));
  }
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

uint64_t TrialBytes(uint64_t connections) {
  return 2 * connections * kBytesPerConnection + kTrialFileBytes;
}

Error NoRoom(const std::string& dir, uint64_t needed, size_t stored, std::string_view what) {
  auto free = FreeBytes(dir);
  return MakeError(
      ErrorKind::kNoSpace,
      fmt::format("the results directory {} is out of room: {} needs about {}, and its "
                  "filesystem has {} free. {} intact (`pqc-bench report {}` reads them); free "
                  "some space, then finish the study with `pqc-bench run --resume {}`",
                  dir, what, Megabytes(needed), free ? Megabytes(*free) : "an unknown amount",
                  stored == kUnknownStored
                      ? std::string("The trials stored so far are")
                      : fmt::format("The {} trial(s) stored before it are", stored),
                  dir, dir));
}

}  // namespace pqc::results
