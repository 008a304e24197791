// sys_error.h — SysError: how the link's system calls report a failure.
#pragma once

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/error.h"

namespace pqc::link {

// SysError: the failed call `what` with errno's text, as a kSystem error (read errno before
// anything else can change it).
inline Error SysError(const std::string& what) {
  return MakeError(ErrorKind::kSystem, fmt::format("{}: {}", what, std::strerror(errno)));
}

}  // namespace pqc::link
