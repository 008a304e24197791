// syntax — the HTTP/1.1 grammar pieces (RFC 9110/9112) shared by the response parser (client)
// and the request parser (embedded server), so both sides accept and refuse the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pqc::http {

bool IsTokenChar(char c);
bool IsToken(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
// TrimOws: strips spaces and tabs at both ends (optional whitespace around header values).
std::string_view TrimOws(std::string_view s);
// IsValidFieldValue: no control characters other than HTAB (a CR or NUL inside a value is how
// response splitting and smuggling start).
bool IsValidFieldValue(std::string_view s);

// SplitHeaderLine: "Name: value" into a token name and a trimmed value. False if the name is
// not a token, there is whitespace before the colon, or the value has control characters.
bool SplitHeaderLine(std::string_view line, std::string_view* name, std::string_view* value);

// HasToken: whether a comma-separated list (Connection, Transfer-Encoding) contains token,
// case-insensitively. LastTokenIs: whether its last element is token (chunked must be last).
bool HasToken(std::string_view list, std::string_view token);
bool LastTokenIs(std::string_view list, std::string_view token);

// ParseContentLength: the value of one Content-Length field. A list of identical values
// ("5, 5", which proxies produce when merging) is accepted; anything else is refused.
bool ParseContentLength(std::string_view value, uint64_t* out);

// Excerpt: up to 60 bytes of s with control bytes escaped, for quoting peer input in errors.
std::string Excerpt(std::string_view s);

// LineReader — collects one line that may arrive split across reads. The line is returned
// without its terminator (CRLF, or a bare LF, which RFC 9112 lets recipients accept). Bytes
// are copied only when a line actually spans reads; the buffer keeps its capacity across
// lines, so a steady connection does not allocate.
class LineReader {
 public:
  enum class Status { kLine, kNeedMore, kTooLong };

  // Next: scans in; *used receives how many bytes of in were taken. With kLine, *line stays
  // valid until the next call. budget bounds the whole line plus its terminator, including
  // the part buffered() from earlier reads.
  Status Next(std::string_view in, size_t budget, size_t* used, std::string_view* line);
  // buffered: bytes of a line not yet complete, taken by earlier calls.
  size_t buffered() const { return pending_ ? 0 : buf_.size(); }
  void Clear() {
    buf_.clear();
    pending_ = false;
  }

 private:
  std::string buf_;
  bool pending_ = false;  // buf_ holds a line already returned; clear it on the next call
};

}  // namespace pqc::http
