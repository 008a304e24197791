// file_output — every file the tool writes (results' side files, reports, certificates and
// keys, servers' configurations, outputs the user names), written one way: into a new file
// beside the destination, of a name no one can predict (".<name>.<random>"), created
// exclusively and never through a symbolic link, with its mode from the start; then renamed
// over the destination. A directory others can write into (a shared /tmp, a results
// directory on a shared volume) therefore cannot make the tool overwrite another file through a
// planted link, nor read a key in the moment before its mode is set; and a reader sees the
// old file or the new one, never half of one. A stream not committed (an error, an exception)
// leaves no temporary behind.
#pragma once

#include <sys/types.h>

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "core/error.h"

namespace pqc {

// kPublicFile: what others may read (less the user's umask, as any new file); kSecretFile: a
// private key, the rendezvous's or a server's, and any file with one in it.
constexpr mode_t kPublicFile = 0666;
constexpr mode_t kSecretFile = 0600;

class OutputFile {
 public:
  // Create: the new file beside `path`, ready for stream(); `what` names it in errors
  // ("--samples", "report") with the path.
  static Result<OutputFile> Create(const std::string& path, mode_t mode, std::string_view what);
  OutputFile(OutputFile&&) noexcept;
  OutputFile& operator=(OutputFile&&) noexcept;
  ~OutputFile();

  std::ostream& stream();
  // Commit: flushes, closes and renames the file over `path`; an error (the disk full, the
  // directory gone) says which file, and leaves `path` as it was.
  Status Commit();

 private:
  struct State;
  explicit OutputFile(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// WriteFileAtomically: `bytes` as the whole of `path`, through an OutputFile.
Status WriteFileAtomically(const std::string& path, std::string_view bytes, mode_t mode,
                           std::string_view what);

}  // namespace pqc
