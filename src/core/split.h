// split — Split: a list as written on a command line or in a scenario ("X25519:MLKEM768",
// "resume:80,fresh:20", "1%,30%") cut at any of `separators`, empty parts kept so that each
// caller can name an empty item in its error ("empty group name in list 'a::b'").
#pragma once

#include <string_view>
#include <vector>

namespace pqc {

inline std::vector<std::string_view> Split(std::string_view text, std::string_view separators) {
  std::vector<std::string_view> parts;
  // Bounded: each pass consumes one separator.
  for (;;) {
    const size_t at = text.find_first_of(separators);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

}  // namespace pqc
