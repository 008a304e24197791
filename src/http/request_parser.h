// RequestParser — incremental parser of the GET/HEAD requests the embedded target serves.
// Requests may arrive split across reads or several in one read (pipelining): Feed reports
// how many bytes one request took, and the server feeds the rest after answering.
// Anything the target would not answer correctly (other methods, request bodies, HTTP/2
// prefaces, oversized heads) is refused with a class that maps to a status code, so that a
// misconfigured client sees a clear error instead of a hang.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "http/parse_result.h"
#include "http/syntax.h"

namespace pqc {

enum class RequestErrorClass {
  kNone,
  kBadRequest,        // 400: malformed line or header, missing Host, a body, bad version
  kTooLarge,          // 431: request line plus headers over the limit
  kMethodNotAllowed,  // 405: a well-formed method other than GET or HEAD
};

// StatusForRequestError: the HTTP status the server answers with before closing.
int StatusForRequestError(RequestErrorClass c);

class RequestParser {
 public:
  static constexpr size_t kDefaultMaxBytes = 16 * 1024;

  explicit RequestParser(size_t max_bytes = kDefaultMaxBytes);

  // Reset: ready for the next request on the connection; keeps buffer capacity.
  void Reset();
  // Feed: parses data; kComplete once the blank line ending the headers is consumed.
  ParseResult Feed(std::string_view data);

  ParseStatus status() const;
  bool is_head() const { return is_head_; }
  // target: the request-target as sent ("/payload/1K", possibly with "?query").
  const std::string& target() const { return target_; }
  // user_agent: the User-Agent header's value ("" if none): what the observatory names a
  // client by.
  const std::string& user_agent() const { return user_agent_; }
  // keep_alive: HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "keep-alive".
  bool keep_alive() const { return keep_alive_; }
  RequestErrorClass error_class() const { return error_class_; }
  const std::string& error_message() const { return error_message_; }

 private:
  enum class State { kRequestLine, kHeaders, kDone, kError };

  bool OnRequestLine(std::string_view line);
  bool OnHeaderLine(std::string_view line);
  bool OnHeadersEnd();
  bool Fail(RequestErrorClass c, std::string message);

  size_t max_bytes_;
  http::LineReader line_;
  State state_ = State::kRequestLine;
  size_t bytes_ = 0;
  std::string target_;
  std::string user_agent_;
  bool is_head_ = false;
  bool http10_ = false;
  bool has_host_ = false;
  bool connection_close_ = false;
  bool connection_keep_alive_ = false;
  bool keep_alive_ = false;
  RequestErrorClass error_class_ = RequestErrorClass::kNone;
  std::string error_message_;
};

}  // namespace pqc
