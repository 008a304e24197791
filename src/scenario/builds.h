// builds — the binaries an arm is measured with, named in the scenario's [builds.NAME] tables
// and chosen per arm by the `build` setting, so that two builds (OpenSSL 3.5 against 3.6, a
// patch against main, two nginx binaries or two server configurations) are arms of one study:
// interleaved block by block and paired by block like any other factor.
//
//   [builds.openssl36]
//   pqc_bench = "build-openssl-3.6/src/pqc-bench"  # another build of this tool: its load client
//                                                  # and its embedded server measure the arm
//   nginx = "…"    haproxy = "…"                   # other server binaries (targets nginx, haproxy)
//   serve_args = ["--handshake-cpu", "50us"]       # more flags of the embedded server
//
//   [matrix]
//   build = ["this", "openssl36"]                  # "this": the running pqc-bench, as run sets it
//
// An arm of another pqc_bench is measured by that binary: the runner starts it as
// `run SCENARIO --only … --trials 1 --as-build NAME` for the trial (trial_executor.cc), reads
// the trial it stored and stores it as this run's, so every number of the arm comes from the
// other build's OpenSSL, client and server. Paths are relative to the directory `run` starts
// in.
#pragma once

#include <toml++/toml.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "results/trial_record.h"

namespace pqc::scenario {

// kThisBuild: the build value of an arm measured by the running binary (the default).
inline constexpr std::string_view kThisBuild = "this";
// kBuildFactor: the matrix factor whose values name builds (run --build adds it).
inline constexpr std::string_view kBuildFactor = "build";

struct Build {
  std::string name;
  std::string pqc_bench;                // absolute; empty: this binary measures the arm
  std::string nginx, haproxy;           // absolute; empty: the run's (--nginx, $PQC_NGINX, …)
  std::vector<std::string> serve_args;  // appended to the embedded server's command line
  std::string location;                 // "file:line:col" of its table, for messages
};

using Builds = std::map<std::string, Build, std::less<>>;

// BuildsKeys: the keys of a [builds.NAME] table, for messages.
inline constexpr std::string_view kBuildKeys = "pqc_bench, nginx, haproxy, serve_args";

// FindBuild: the build an arm's `build` setting names; nullptr for "this" (or an unknown
// name, which parsing refuses).
const Build* FindBuild(const Builds& builds, std::string_view name);

// CheckBuildFiles: the binaries of `build` exist and are executable (at run time, not at
// parse time: a stored scenario is parsed again by report and merge, wherever it is read).
Status CheckBuildFiles(const Build& build);

// BuildFacts: what measured a trial (stored with it): the binary's absolute path, its SHA-256,
// and the OpenSSL and commit it reports. `exe` empty: this binary. Computed once per build.
results::BuildRecord BuildFactsOf(std::string_view name, const std::string& exe,
                                  const std::string& openssl_version,
                                  const std::string& git_commit);

// FileSha256: the SHA-256 of a file as 64 hex digits ("" if it cannot be read).
std::string FileSha256(const std::string& path);

}  // namespace pqc::scenario
