// server_groups — checks a server group list (OpenSSL syntax: ':' between groups, '/' between
// preference tuples, '*', '?' and '-' prefixes, DEFAULT) name by name before OpenSSL sees it:
// OpenSSL 3.5 rejects a list with an unknown name without saying which, so a typo would
// otherwise surface as a bare "rejected". Names OpenSSL knows that the tool's table does not
// (x448, ffdhe2048, P-256) stay allowed.
#pragma once

#include <string_view>

#include "core/error.h"

namespace pqc {

// ValidateServerGroups: a kUsage error naming the first unknown group and the nearest valid
// name, or an empty list or element.
Status ValidateServerGroups(std::string_view list);

}  // namespace pqc
