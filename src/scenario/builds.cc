#include "scenario/builds.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <memory>

#include "core/paths.h"
#include "scenario/scenario_parts.h"
#include "tls/ossl_ptr.h"

namespace pqc::scenario {
namespace {

// ValidBuildName: letters, digits, '_', '-', '.': a name that reads as a factor value and
// passes through `run --only build=NAME` unchanged.
bool ValidBuildName(std::string_view name) {
  if (name.empty() || name == kThisBuild) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

Status ParsePath(const Where& where, const toml::node& value, std::string_view key,
                 std::string& out) {
  auto text = value.value_exact<std::string>();
  if (!text || text->empty()) {
    return where(value, fmt::format("{} must be the path of a binary (a non-empty string)", key));
  }
  out = AbsolutePath(*text);
  return {};
}

Status ParseBuild(const Where& where, std::string_view name, const toml::node& node, Build& b) {
  const toml::table* t = node.as_table();
  if (t == nullptr) {
    return where(node, fmt::format("[builds.{}] must be a table ({})", name, kBuildKeys));
  }
  if (!ValidBuildName(name)) {
    return where(node, fmt::format("build name '{}': use letters, digits, '_', '-' and '.' "
                                   "('{}' is the running binary and needs no table)",
                                   name, kThisBuild));
  }
  b.name = std::string(name);
  b.location = where.At(node);
  for (const auto& [key, value] : *t) {
    const std::string_view k = key.str();
    if (k == "pqc_bench") {
      if (Status st = ParsePath(where, value, k, b.pqc_bench); !st) return st;
    } else if (k == "nginx") {
      if (Status st = ParsePath(where, value, k, b.nginx); !st) return st;
    } else if (k == "haproxy") {
      if (Status st = ParsePath(where, value, k, b.haproxy); !st) return st;
    } else if (k == "serve_args") {
      const toml::array* a = value.as_array();
      if (a == nullptr) {
        return where(value,
                     "serve_args must be an array of strings, e.g. [\"--handshake-cpu\", "
                     "\"50us\"]");
      }
      for (const toml::node& arg : *a) {
        auto text = arg.value_exact<std::string>();
        if (!text) return where(arg, "serve_args must be an array of strings");
        b.serve_args.push_back(*text);
      }
    } else {
      return where(value,
                   fmt::format("unknown key '{}' in [builds.{}] (valid: {})", k, name, kBuildKeys));
    }
  }
  if (b.pqc_bench.empty() && b.nginx.empty() && b.haproxy.empty() && b.serve_args.empty()) {
    return where(
        node, fmt::format("[builds.{}] sets nothing: give at least one of {}", name, kBuildKeys));
  }
  return {};
}

// BuildNamed: `name` is "this" or a [builds] table; the error says which exist.
Status BuildNamed(const Scenario& s, const std::string& name, const std::string& where) {
  if (name == kThisBuild || s.builds.count(name) > 0) return {};
  std::string names(kThisBuild);
  for (const auto& [n, b] : s.builds) names += ", " + n;
  return MakeError(ErrorKind::kConfig,
                   fmt::format("{}build '{}' is not defined (defined: {}; add a [builds.{}] table "
                               "with pqc_bench, nginx, haproxy or serve_args)",
                               where, name, names, name));
}

}  // namespace

Status ParseBuilds(const Where& where, const toml::table& root, Scenario& s) {
  const toml::node* node = root.get("builds");
  if (node == nullptr) return {};
  const toml::table* t = node->as_table();
  if (t == nullptr) {
    return where(*node, fmt::format("[builds] must hold tables [builds.NAME] ({})", kBuildKeys));
  }
  for (const auto& [name, value] : *t) {
    Build b;
    if (Status st = ParseBuild(where, name.str(), value, b); !st) return st;
    s.builds.emplace(b.name, std::move(b));
  }
  return {};
}

Status AddBuildFlags(const std::vector<std::string>& flags, Scenario& s) {
  if (flags.empty()) return {};
  for (const Factor& f : s.factors) {
    if (f.name == kBuildFactor) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--build: {} has a build factor of its own (matrix.build); "
                                   "name the builds there, or drop it to give them here",
                                   s.file));
    }
  }
  Factor factor{.name = std::string(kBuildFactor), .values = {}};
  for (const std::string& flag : flags) {
    const size_t eq = flag.find('=');
    const std::string name = flag.substr(0, eq);
    if (eq == std::string::npos || eq + 1 == flag.size() || !ValidBuildName(name)) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--build '{}': expected NAME=PATH, NAME of letters, digits, "
                                   "'_', '-', '.' (not '{}'), e.g. --build "
                                   "openssl36=build-openssl-3.6/src/pqc-bench",
                                   flag, kThisBuild));
    }
    if (s.builds.count(name) > 0) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--build {}: build '{}' is given twice (or is a [builds.{}] of "
                                   "{})",
                                   flag, name, name, s.file));
    }
    Build b{.name = name,
            .pqc_bench = AbsolutePath(flag.substr(eq + 1)),
            .nginx = {},
            .haproxy = {},
            .serve_args = {},
            .location = "--build " + flag};
    s.builds.emplace(name, std::move(b));
    auto overrides = std::make_shared<toml::table>();
    overrides->insert("build", name);
    factor.values.push_back({.label = name, .overrides = overrides, .location = "--build " + flag});
  }
  s.factors.push_back(std::move(factor));
  return {};
}

Status CheckBuildsExist(const Where& where, const toml::table& root, const Scenario& s) {
  const toml::node* at = root.at_path("target.build").node();
  if (Status st = BuildNamed(s, s.base.build, at != nullptr ? where.At(*at) + ": " : ""); !st) {
    return st;
  }
  for (const Factor& f : s.factors) {
    for (const FactorValue& v : f.values) {
      const toml::node* n = v.overrides->get("build");
      if (n == nullptr) continue;
      ArmSettings scratch;
      (void)FindSettingKey("build")->apply(*n, scratch);
      if (Status st = BuildNamed(s, scratch.build, v.location + ": "); !st) return st;
    }
  }
  return {};
}

const Build* FindBuild(const Builds& builds, std::string_view name) {
  auto it = builds.find(name);
  return it == builds.end() ? nullptr : &it->second;
}

Status CheckBuildFiles(const Build& b) {
  for (const auto& [key, path] :
       {std::pair<std::string_view, const std::string&>{"pqc_bench", b.pqc_bench},
        {"nginx", b.nginx},
        {"haproxy", b.haproxy}}) {
    if (path.empty()) continue;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || ::access(path.c_str(), X_OK) != 0) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("{}: [builds.{}] {} = {}: not an executable file{}", b.location,
                                   b.name, key, path,
                                   key == "pqc_bench" ? " (build it first, e.g. PQC_OPENSSL=3.6 "
                                                        "./scripts/build.sh release pqc-bench)"
                                                      : ""));
    }
  }
  return {};
}

std::string FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return {};
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    const auto n = static_cast<size_t>(in.gcount());
    if (n > 0 && EVP_DigestUpdate(ctx.get(), buf.data(), n) != 1) return {};
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md.data(), &len) != 1) return {};
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

results::BuildRecord BuildFactsOf(std::string_view name, const std::string& exe,
                                  const std::string& openssl_version,
                                  const std::string& git_commit) {
  return {.name = std::string(name),
          .exe = exe,
          .sha256 = FileSha256(exe),
          .openssl_version = openssl_version,
          .git_commit = git_commit};
}

}  // namespace pqc::scenario
