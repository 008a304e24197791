#include "http/syntax.h"

#include <algorithm>
#include <cstring>

namespace pqc::http {

bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), IsTokenChar);
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IsValidFieldValue(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

bool SplitHeaderLine(std::string_view line, std::string_view* name, std::string_view* value) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  *name = line.substr(0, colon);
  *value = TrimOws(line.substr(colon + 1));
  return IsToken(*name) && IsValidFieldValue(*value);
}

namespace {

// ForEachElement calls fn on each trimmed, non-empty element of a comma-separated list.
template <typename Fn>
void ForEachElement(std::string_view list, Fn fn) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = TrimOws(list.substr(0, comma));
    if (!item.empty()) fn(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace

bool HasToken(std::string_view list, std::string_view token) {
  bool found = false;
  ForEachElement(list,
                 [&](std::string_view item) { found = found || EqualsIgnoreCase(item, token); });
  return found;
}

bool LastTokenIs(std::string_view list, std::string_view token) {
  std::string_view last;
  ForEachElement(list, [&](std::string_view item) { last = item; });
  return EqualsIgnoreCase(last, token);
}

bool ParseContentLength(std::string_view value, uint64_t* out) {
  constexpr uint64_t kMax = uint64_t{1} << 62;
  bool any = false;
  bool ok = true;
  uint64_t first = 0;
  // An empty element ("5,,5") is tolerated like any list; a missing value is not.
  ForEachElement(value, [&](std::string_view item) {
    uint64_t v = 0;
    for (char c : item) {
      if (c < '0' || c > '9' || v > kMax / 10) {
        ok = false;
        return;
      }
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (any && v != first) ok = false;
    if (!any) first = v;
    any = true;
  });
  if (!ok || !any) return false;
  *out = first;
  return true;
}

std::string Excerpt(std::string_view s) {
  constexpr size_t kMax = 60;
  std::string out;
  for (char c : s.substr(0, kMax)) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  if (s.size() > kMax) out += "...";
  return out;
}

LineReader::Status LineReader::Next(std::string_view in, size_t budget, size_t* used,
                                    std::string_view* line) {
  if (pending_) Clear();
  const void* nl = std::memchr(in.data(), '\n', in.size());
  if (nl == nullptr) {
    *used = in.size();
    if (buf_.size() + in.size() >= budget) return Status::kTooLong;
    buf_.append(in);
    return Status::kNeedMore;
  }
  size_t pos = static_cast<size_t>(static_cast<const char*>(nl) - in.data());
  *used = pos + 1;
  if (buf_.size() + pos + 1 > budget) return Status::kTooLong;
  std::string_view whole;
  if (buf_.empty()) {
    whole = in.substr(0, pos);
  } else {
    buf_.append(in.substr(0, pos));
    whole = buf_;
    pending_ = true;
  }
  if (!whole.empty() && whole.back() == '\r') whole.remove_suffix(1);
  *line = whole;
  return Status::kLine;
}

}  // namespace pqc::http
