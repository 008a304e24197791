#include "cli/provider_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/paths.h"

namespace pqc::cli {

std::vector<std::string> ProviderFlags::AsSettings() const {
  std::vector<std::string> out;
  if (!names.empty()) out.push_back(fmt::format("providers={}", fmt::join(names, ",")));
  // Absolute: the stored setting must name the same directory when the run is resumed.
  if (!path.empty()) out.push_back("provider_path=" + AbsolutePath(path));
  if (!property_query.empty()) out.push_back("property_query=" + property_query);
  return out;
}

void AddProviderFlags(CLI::App& app, ProviderFlags& f) {
  app.add_option("--provider", f.names,
                 "OpenSSL provider to load, repeatable, in order (e.g. --provider fips "
                 "--provider base); default: OpenSSL's default provider")
      ->check([](const std::string& v) {
        auto n = ParseProviderNames(v);
        return n ? std::string() : n.error().message;
      });
  app.add_option("--provider-path", f.path,
                 "directory of the providers' modules (default: the OpenSSL build's)");
  app.add_option("--property-query", f.property_query,
                 "property query of every algorithm fetch (e.g. fips=yes)");
}

Status LoadProviders(const ProviderFlags& f) {
  return LoadProcessProviders(f.Spec());
}

}  // namespace pqc::cli
