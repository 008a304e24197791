// openssl_build — what tells two OpenSSL builds apart beyond their version number: how the
// library was built (compiler flags, date, platform, directories) and which providers are
// loaded, with their own versions and build info. A patched tree, other Configure flags or
// the FIPS provider share a version but differ here, so the probe records these facts and a
// comparison of two probes shows them side by side.
#pragma once

#include <string>
#include <vector>

namespace pqc {

struct ProviderFacts {
  std::string name;       // "default", "fips", "legacy", ...
  std::string version;    // the provider's own version ("3.5.7"); "" if it does not say
  std::string buildinfo;  // e.g. "3.5.7"; "" if it does not say

  bool operator==(const ProviderFacts&) const = default;
};

struct OpenSslBuildFacts {
  std::string version_text;  // "OpenSSL 3.5.7 9 Jun 2026"
  std::string cflags;        // the compiler and its flags
  std::string built_on;      // the build's date
  std::string platform;      // Configure's target, e.g. "linux-x86_64"
  std::string dir;           // OPENSSLDIR
  std::string modules_dir;   // where providers are loaded from
  std::vector<ProviderFacts> providers;

  bool operator==(const OpenSslBuildFacts&) const = default;
};

// CurrentOpenSslBuild: the facts of the library this process runs with. OpenSSL prints its
// build facts with a label ("compiler: ...", "OPENSSLDIR: \"...\""); the values here have the
// label and the quotes removed. Listing the providers loads the default one if none is loaded
// yet (OpenSSL's own fallback, as the first algorithm fetch would).
OpenSslBuildFacts CurrentOpenSslBuild();

}  // namespace pqc
