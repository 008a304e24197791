#include "tls/providers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <algorithm>
#include <filesystem>

#include "core/split.h"
#include "tls/ossl_ptr.h"
#include "tls/ssl_error.h"

namespace pqc {
namespace {

using ConfPtr = OsslPtr<CONF, NCONF_free>;

std::string ModulesDir(const ProviderSpec& spec) {
  if (!spec.path.empty()) return spec.path;
  const char* dir = OPENSSL_info(OPENSSL_INFO_MODULES_DIR);
  return dir != nullptr ? dir : "";
}

// FipsParams: the [fips_sect] of fipsmodule.cnf (the module's MAC and self-test state) as the
// parameters OSSL_PROVIDER_load_ex hands the module, as a configuration file would. `store`
// keeps the strings the parameters point into.
Result<std::vector<OSSL_PARAM>> FipsParams(const std::string& file,
                                           std::vector<std::string>& store) {
  ConfPtr conf(NCONF_new(nullptr));
  long line = 0;
  if (!conf || NCONF_load(conf.get(), file.c_str(), &line) != 1) {
    return MakeError(ErrorKind::kConfig, fmt::format("FIPS module configuration {} (line {}): {}",
                                                     file, line, DrainSslErrors()));
  }
  STACK_OF(CONF_VALUE)* section = NCONF_get_section(conf.get(), "fips_sect");
  if (section == nullptr) {
    return MakeError(ErrorKind::kConfig,
                     fmt::format("{} has no [fips_sect] (write it with openssl fipsinstall -out "
                                 "{})",
                                 file, file));
  }
  std::vector<std::pair<std::string, std::string>> values;
  for (int i = 0; i < sk_CONF_VALUE_num(section); ++i) {
    const CONF_VALUE* v = sk_CONF_VALUE_value(section, i);
    if (v->name != nullptr && v->value != nullptr) values.emplace_back(v->name, v->value);
  }
  store.clear();
  store.reserve(values.size() * 2);  // no reallocation: the parameters point into it
  std::vector<OSSL_PARAM> params;
  for (auto& [name, value] : values) {
    store.push_back(name);
    char* key = store.back().data();
    store.push_back(value);
    std::string& text = store.back();
    params.push_back(OSSL_PARAM_construct_utf8_string(key, text.data(), text.size()));
  }
  params.push_back(OSSL_PARAM_construct_end());
  return params;
}

Error Failed(const std::string& name, const ProviderSpec& spec, const std::string& detail) {
  const std::string module = (std::filesystem::path(ModulesDir(spec)) / (name + ".so")).string();
  std::error_code ec;
  const bool there = std::filesystem::exists(module, ec);
  return MakeError(ErrorKind::kUnsupported,
                   fmt::format("provider '{}' could not be loaded from {} ({}{}); list what is "
                               "there with ls {}, or give --provider-path DIR",
                               name, ModulesDir(spec), there ? "" : module + " does not exist; ",
                               detail, ModulesDir(spec)));
}

}  // namespace

std::string ProviderSpec::Label() const {
  std::string out = names.empty() ? "default" : fmt::format("{}", fmt::join(names, "+"));
  if (!property_query.empty()) out += fmt::format(" ({})", property_query);
  return out;
}

Result<std::vector<std::string>> ParseProviderNames(std::string_view text) {
  std::vector<std::string> names;
  if (text.empty()) return names;
  for (std::string_view part : Split(text, ",+")) {
    if (part.empty() || part.size() > 64 ||
        part.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
            std::string_view::npos) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("'{}' in '{}' is not a provider name (letters, digits, '-', "
                                   "'_'; e.g. fips,base or default)",
                                   part, text));
    }
    if (std::find(names.begin(), names.end(), part) != names.end()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("provider '{}' is named twice in '{}'", part, text));
    }
    names.emplace_back(part);
  }
  return names;
}

Result<std::string> FipsModuleConfig(const ProviderSpec& spec) {
  std::vector<std::string> dirs;
  if (!spec.path.empty()) dirs.push_back(spec.path);
  if (const char* d = OPENSSL_info(OPENSSL_INFO_CONFIG_DIR); d != nullptr) dirs.emplace_back(d);
  for (const std::string& d : dirs) {
    const std::string file = (std::filesystem::path(d) / "fipsmodule.cnf").string();
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) return file;
  }
  return MakeError(ErrorKind::kConfig,
                   fmt::format("provider 'fips': no fipsmodule.cnf in {} (the FIPS module needs "
                               "the configuration `openssl fipsinstall -module {}/fips.so -out "
                               "DIR/fipsmodule.cnf` writes; scripts/setup.sh installs it)",
                               fmt::join(dirs, " or "), ModulesDir(spec)));
}

LibraryContext::~LibraryContext() {
  for (OSSL_PROVIDER* p : loaded_) OSSL_PROVIDER_unload(p);
  if (owned_) OSSL_LIB_CTX_free(ctx_);
}

Result<std::unique_ptr<LibraryContext>> LibraryContext::Load(const ProviderSpec& spec, bool own) {
  auto named = [&](const char* n) {
    return std::find(spec.names.begin(), spec.names.end(), n) != spec.names.end();
  };
  if (named("fips") && !named("base") && !named("default")) {
    return MakeError(ErrorKind::kUsage,
                     "provider 'fips' without 'base': the FIPS module has no encoders or decoders, "
                     "so no PEM key or certificate could be read or written; add --provider base "
                     "(in a scenario, providers = [\"fips\", \"base\"])");
  }
  std::unique_ptr<LibraryContext> lc(new LibraryContext());
  if (own) {
    lc->ctx_ = OSSL_LIB_CTX_new();
    if (lc->ctx_ == nullptr) return SslError("creating a library context");
    lc->owned_ = true;
  }
  if (!spec.path.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.path, ec)) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--provider-path {}: no such directory", spec.path));
    }
    if (OSSL_PROVIDER_set_default_search_path(lc->ctx_, spec.path.c_str()) != 1) {
      return SslError(fmt::format("setting the provider search path {}", spec.path));
    }
  }
  for (const std::string& name : spec.names) {
    OSSL_PROVIDER* p = nullptr;
    ERR_clear_error();
    if (name == "fips") {
      auto file = FipsModuleConfig(spec);
      if (!file) return file.error();
      std::vector<std::string> store;
      auto params = FipsParams(*file, store);
      if (!params) return params.error();
      p = OSSL_PROVIDER_load_ex(lc->ctx_, name.c_str(), params->data());
      if (p == nullptr) {
        return Failed(name, spec, fmt::format("with {}: {}", *file, DrainSslErrors()));
      }
    } else {
      p = OSSL_PROVIDER_load(lc->ctx_, name.c_str());
      if (p == nullptr) return Failed(name, spec, DrainSslErrors());
    }
    lc->loaded_.push_back(p);
    // A module that loads but is not usable (a FIPS self-test that failed) is not available.
    if (OSSL_PROVIDER_available(lc->ctx_, name.c_str()) != 1) {
      return Failed(name, spec, "loaded but not available: " + DrainSslErrors());
    }
  }
  if (!spec.property_query.empty()) {
    if (EVP_set_default_properties(lc->ctx_, spec.property_query.c_str()) != 1) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("--property-query '{}' is not a property query OpenSSL "
                                   "accepts (e.g. fips=yes): {}",
                                   spec.property_query, DrainSslErrors()));
    }
    lc->propq_ = spec.property_query;
  }
  return lc;
}

Status LoadProcessProviders(const ProviderSpec& spec) {
  if (spec.empty()) return {};
  // Held until the process exits and never unloaded by us: OpenSSL's own exit handler
  // (OPENSSL_cleanup) tears the default context down with its providers, and an unload from a
  // static destructor would race it. A command loads its providers once, from its main thread.
  static LibraryContext* kept = nullptr;
  if (kept != nullptr) {
    return MakeError(ErrorKind::kUsage, "the process's providers are already loaded");
  }
  auto lc = LibraryContext::Load(spec, false);
  if (!lc) return lc.error();
  kept = lc->release();
  kept->loaded_.clear();  // the default context's cleanup releases them
  return {};
}

std::vector<std::string> ProviderArgs(const ProviderSpec& spec) {
  std::vector<std::string> args;
  for (const std::string& n : spec.names) args.insert(args.end(), {"--provider", n});
  if (!spec.path.empty()) args.insert(args.end(), {"--provider-path", spec.path});
  if (!spec.property_query.empty())
    args.insert(args.end(), {"--property-query", spec.property_query});
  return args;
}

}  // namespace pqc
