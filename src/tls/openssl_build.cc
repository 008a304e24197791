#include "tls/openssl_build.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <string_view>

namespace pqc {
namespace {

// Unlabelled: "compiler: gcc -O3" → "gcc -O3", "OPENSSLDIR: \"/x\"" → "/x". A value without a
// label is kept as it is.
std::string Unlabelled(const char* text) {
  std::string_view v = text == nullptr ? "" : text;
  if (const size_t colon = v.find(": "); colon != std::string_view::npos)
    v.remove_prefix(colon + 2);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return std::string(v);
}

int AddProvider(OSSL_PROVIDER* provider, void* out) {
  const char* version = nullptr;
  const char* buildinfo = nullptr;
  OSSL_PARAM params[] = {
      OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, &version, 0),
      OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, &buildinfo, 0),
      OSSL_PARAM_END,
  };
  // A provider that answers none of the parameters is still listed, by name.
  (void)OSSL_PROVIDER_get_params(provider, params);
  static_cast<std::vector<ProviderFacts>*>(out)->push_back(
      {.name = OSSL_PROVIDER_get0_name(provider),
       .version = version == nullptr ? "" : version,
       .buildinfo = buildinfo == nullptr ? "" : buildinfo});
  return 1;
}

}  // namespace

OpenSslBuildFacts CurrentOpenSslBuild() {
  OpenSslBuildFacts facts{.version_text = OpenSSL_version(OPENSSL_VERSION),
                          .cflags = Unlabelled(OpenSSL_version(OPENSSL_CFLAGS)),
                          .built_on = Unlabelled(OpenSSL_version(OPENSSL_BUILT_ON)),
                          .platform = Unlabelled(OpenSSL_version(OPENSSL_PLATFORM)),
                          .dir = Unlabelled(OpenSSL_version(OPENSSL_DIR)),
                          .modules_dir = Unlabelled(OpenSSL_version(OPENSSL_MODULES_DIR))};
  OSSL_PROVIDER_do_all(nullptr, AddProvider, &facts.providers);
  return facts;
}

}  // namespace pqc
