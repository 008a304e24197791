#include "target/server_files.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/paths.h"
#include "core/units.h"
#include "http/payload.h"
#include "http/routes.h"

namespace pqc::target {
namespace {

Status WritePayloadFile(uint64_t size, const std::string& path) {
  auto file = OutputFile::Create(path, kPublicFile, "payload file");
  if (!file) return file.error();
  std::ostream& out = file->stream();
  std::vector<char> buffer = MakePayloadBuffer();
  // Bounded: size / kWriteChunk + 1 writes.
  for (uint64_t offset = 0; offset < size && out;) {
    auto chunk = PayloadChunk(buffer, offset, size - offset);
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    offset += chunk.size();
  }
  return file->Commit();
}

}  // namespace

std::vector<std::string> PayloadNames(uint64_t size) {
  std::vector<std::string> names = {FormatSize(size), std::to_string(size),
                                    std::to_string(size) + "B"};
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Status WritePayloadFiles(const std::vector<uint64_t>& sizes, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return MakeError(ErrorKind::kIo, fmt::format("cannot create {}: {}", dir, ec.message()));
  for (uint64_t size : sizes) {
    if (size > kMaxPayloadBytes) {
      return MakeError(ErrorKind::kConfig,
                       fmt::format("payload size {} is above the largest served, {}",
                                   FormatSize(size), FormatSize(kMaxPayloadBytes)));
    }
    std::vector<std::string> names = PayloadNames(size);
    const std::string first = dir + "/" + names.front();
    if (Status s = WritePayloadFile(size, first); !s) return s;
    for (size_t i = 1; i < names.size(); ++i) {
      const std::string alias = dir + "/" + names[i];
      unlink(alias.c_str());
      if (link(first.c_str(), alias.c_str()) != 0) {
        return MakeError(ErrorKind::kIo,
                         fmt::format("payload file {}: link: {}", alias, strerror(errno)));
      }
    }
  }
  return {};
}

std::string OpensslConfigText(const ServerConfig& c) {
  if (c.providers.empty() && c.property_query.empty()) return "";
  std::string text = "openssl_conf = openssl_init\n\n[openssl_init]\nproviders = provider_sect\n";
  if (!c.property_query.empty()) text += "alg_section = algorithm_sect\n";
  text += "\n[provider_sect]\n";
  std::string sections;
  for (const std::string& n : c.providers) {
    text += fmt::format("{0} = {0}_sect\n", n);
    // The FIPS module's section (its MAC and self-test state) is fipsinstall's file.
    if (n == "fips" && !c.fips_config.empty()) {
      sections += fmt::format(".include {}\n", AbsolutePath(c.fips_config));
    } else {
      sections += fmt::format("[{}_sect]\nactivate = 1\n", n);
    }
  }
  if (!c.property_query.empty()) {
    text += fmt::format("\n[algorithm_sect]\ndefault_properties = {}\n", c.property_query);
  }
  return text + "\n" + sections;
}

uint64_t MaxServerFds() {
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  return std::min<uint64_t>(lim.rlim_max == RLIM_INFINITY ? 65536 : lim.rlim_max, 65536);
}

Status WriteTextFile(const std::string& what, const std::string& path, const std::string& text,
                     mode_t mode) {
  return WriteFileAtomically(path, text, mode, what);
}

Status WriteOpensslConfig(const std::string& what, const ServerConfig& c, const std::string& path) {
  const std::string text = OpensslConfigText(c);
  if (text.empty()) return {};
  return WriteTextFile(what, path, text);
}

}  // namespace pqc::target
