// provider_flags — --provider NAME (repeatable), --provider-path DIR and --property-query Q,
// the same three flags on probe, speed, serve, load and run. The single-process commands load
// them into the process's library context before anything else touches OpenSSL; run hands
// them to every arm as its `providers`, `provider_path` and `property_query` settings.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "tls/providers.h"

namespace pqc::cli {

struct ProviderFlags {
  std::vector<std::string> names;
  std::string path;
  std::string property_query;

  ProviderSpec Spec() const {
    return {.names = names, .path = path, .property_query = property_query};
  }
  // AsSettings: "providers=fips,base", "provider_path=…", "property_query=…" for `run --set`.
  std::vector<std::string> AsSettings() const;
};

void AddProviderFlags(CLI::App& app, ProviderFlags& f);

// LoadProviders: the flags' providers into this process (no-op without flags); an error names
// the provider, the path searched and OpenSSL's reason.
Status LoadProviders(const ProviderFlags& f);

}  // namespace pqc::cli
