// paths — AbsolutePath: every path handed to a child process is made absolute first. A child
// resolves a relative path against its own idea of "here": nginx against its prefix (-p), a
// process started in another directory against that directory. The default results
// directory is relative ("results"), so a relative path reaching nginx's configuration named
// a file under the prefix that nobody had made.
#pragma once

#include <filesystem>
#include <string>

namespace pqc {

// AbsolutePath: `path` against the current directory, normalised ("a/./b" → "/cwd/a/b");
// an empty path stays empty (it means "not given" wherever it is used).
inline std::string AbsolutePath(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  if (ec) return path;
  return p.lexically_normal().string();
}

}  // namespace pqc
