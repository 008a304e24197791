#include "server/server_groups.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <string>

#include "tls/algorithms.h"
#include "tls/ossl_ptr.h"

namespace pqc {
namespace {

// OpenSslKnowsGroup: whether OpenSSL accepts name alone as a group list.
bool OpenSslKnowsGroup(const std::string& name) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  bool ok = ctx && SSL_CTX_set1_groups_list(ctx.get(), name.c_str()) == 1;
  ERR_clear_error();
  return ok;
}

}  // namespace

Status ValidateServerGroups(std::string_view list) {
  if (list.empty()) {
    return MakeError(ErrorKind::kUsage,
                     "the server group list is empty (e.g. X25519MLKEM768:X25519)");
  }
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find_first_of(":/", start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    start = end + 1;
    bool optional = false;
    while (!item.empty() && (item.front() == '*' || item.front() == '?' || item.front() == '-')) {
      optional = optional || item.front() == '?';
      item.remove_prefix(1);
    }
    if (item.empty()) {
      return MakeError(ErrorKind::kUsage,
                       fmt::format("empty group name in '{}' (':' separates groups, '/' "
                                   "preference tuples)",
                                   list));
    }
    if (optional || item == "DEFAULT" || FindGroup(item)) continue;
    if (OpenSslKnowsGroup(std::string(item))) continue;
    return MakeError(ErrorKind::kUsage, fmt::format("in the group list '{}': {}", list,
                                                    FindGroup(item).error().message));
  }
  return {};
}

}  // namespace pqc
