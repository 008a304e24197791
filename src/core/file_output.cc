#include "core/file_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <filesystem>
#include <random>

namespace pqc {
namespace {

// Filebuf: a stream buffer over a descriptor the tool opened itself (O_EXCL, O_NOFOLLOW, its
// mode): std::ofstream can open only by name, which would open the path a second time. This is
// libstdc++'s (GCC's and Debian's clang's standard library); it closes the descriptor.
using Filebuf = __gnu_cxx::stdio_filebuf<char>;

}  // namespace

struct OutputFile::State {
  std::string path, temp, what;
  std::unique_ptr<Filebuf> buf;
  std::unique_ptr<std::ostream> out;
  bool committed = false;
};

OutputFile::OutputFile(std::unique_ptr<State> s) : s_(std::move(s)) {}
OutputFile::OutputFile(OutputFile&&) noexcept = default;
OutputFile& OutputFile::operator=(OutputFile&&) noexcept = default;

OutputFile::~OutputFile() {
  if (s_ == nullptr || s_->committed) return;
  s_->out.reset();
  s_->buf.reset();
  ::unlink(s_->temp.c_str());
}

Result<OutputFile> OutputFile::Create(const std::string& path, mode_t mode, std::string_view what) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..") {
    return MakeError(ErrorKind::kUsage,
                     fmt::format("{}: {} names a directory, not a file", what, path));
  }
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::random_device random;
  for (int attempt = 0; attempt < 64; ++attempt) {
    const uint64_t r = (static_cast<uint64_t>(random()) << 32) | random();
    auto s = std::make_unique<State>();
    s->path = path;
    s->what = std::string(what);
    s->temp = (dir / fmt::format(".{}.{:016x}", name, r)).string();
    const int fd =
        ::open(s->temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) {
      return MakeError(ErrorKind::kIo,
                       fmt::format("{}: cannot write {}: {}", what, path, std::strerror(errno)));
    }
    s->buf = std::make_unique<Filebuf>(fd, std::ios::out);
    s->out = std::make_unique<std::ostream>(s->buf.get());
    return OutputFile(std::move(s));
  }
  return MakeError(
      ErrorKind::kIo,
      fmt::format("{}: cannot write {}: no unused temporary name in {}", what, path, dir.string()));
}

std::ostream& OutputFile::stream() {
  return *s_->out;
}

Status OutputFile::Commit() {
  State& s = *s_;
  // No fsync: the files are the tool's outputs, not a database (results.sqlite is SQLite's
  // to make durable), and tests and runs write many.
  s.out->flush();
  const bool written = s.out->good();
  s.out.reset();
  const bool closed = s.buf->close() != nullptr;
  s.buf.reset();
  if (!written || !closed) {
    ::unlink(s.temp.c_str());
    s.committed = true;
    return MakeError(ErrorKind::kIo, fmt::format("{}: cannot write {}: a write failed (the disk "
                                                 "full?)",
                                                 s.what, s.path));
  }
  // rename() replaces whatever is at `path` — a file, or a symbolic link someone planted —
  // and never writes through a link.
  if (::rename(s.temp.c_str(), s.path.c_str()) != 0) {
    const int e = errno;
    ::unlink(s.temp.c_str());
    s.committed = true;
    return MakeError(ErrorKind::kIo,
                     fmt::format("{}: cannot write {}: {}", s.what, s.path, std::strerror(e)));
  }
  s.committed = true;
  return {};
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes, mode_t mode,
                           std::string_view what) {
  auto file = OutputFile::Create(path, mode, what);
  if (!file) return file.error();
  file->stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return file->Commit();
}

}  // namespace pqc
