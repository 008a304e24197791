// providers — OpenSSL providers chosen by the user (--provider fips --provider base, a
// scenario's `providers`), loaded into a library context before any TLS context, key or
// certificate is made from it: the process's own (probe, speed, serve, load, and a run's
// targets) or one per arm for a run's client, so that arms of one run can compare the
// default provider with the FIPS one. A provider that is missing or fails to load (the FIPS
// module's self-test, its configuration) is an error naming it, the path searched and
// OpenSSL's reason, before any measurement.
#pragma once

#include <openssl/types.h>

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"

namespace pqc {

// ProviderSpec: empty names = OpenSSL's default (the default provider, loaded on first use).
struct ProviderSpec {
  std::vector<std::string> names;  // in load order, e.g. {"fips", "base"}
  std::string path;                // where modules are searched; "" = the build's modules dir
  std::string property_query;      // default properties of every fetch, e.g. "fips=yes"

  bool empty() const { return names.empty() && path.empty() && property_query.empty(); }
  // Label: "fips+base (fips=yes)", or "default" when empty; names an arm's providers.
  std::string Label() const;
  bool operator==(const ProviderSpec&) const = default;
};

// ParseProviderNames: "fips,base" (',' or '+' separated; names of letters, digits, '-', '_').
Result<std::vector<std::string>> ParseProviderNames(std::string_view text);

// LibraryContext: a library context with the spec's providers loaded (RAII: providers
// unloaded and the context freed on destruction). get() is nullptr for the process's own.
class LibraryContext {
 public:
  ~LibraryContext();
  LibraryContext(const LibraryContext&) = delete;
  LibraryContext& operator=(const LibraryContext&) = delete;

  OSSL_LIB_CTX* get() const { return ctx_; }
  const std::string& property_query() const { return propq_; }

  // Load: into a new library context (own = true) or the process's default one. Loading into
  // the default context is for a process's whole life: do it before anything else uses
  // OpenSSL (the default provider is no longer loaded implicitly once another is).
  static Result<std::unique_ptr<LibraryContext>> Load(const ProviderSpec& spec, bool own);

 private:
  friend Status LoadProcessProviders(const ProviderSpec& spec);
  LibraryContext() = default;
  OSSL_LIB_CTX* ctx_ = nullptr;
  bool owned_ = false;
  std::vector<OSSL_PROVIDER*> loaded_;
  std::string propq_;
};

// LoadProcessProviders: LibraryContext::Load into the default context, kept for the process's
// life (a command's --provider flags). No-op for an empty spec.
Status LoadProcessProviders(const ProviderSpec& spec);

// ProviderArgs: the spec as serve/load flags (--provider N …, --provider-path, --property-query),
// for a child process (the embedded target).
std::vector<std::string> ProviderArgs(const ProviderSpec& spec);

// FipsModuleConfig: where the FIPS module's configuration (fipsmodule.cnf, written by
// `openssl fipsinstall`) is found: the spec's path, else OPENSSLDIR; error names both.
Result<std::string> FipsModuleConfig(const ProviderSpec& spec);

}  // namespace pqc
