// ResponseParser — incremental HTTP/1.1 response parser for the load generator. It is fed
// whatever each read returned (one byte works as well as a megabyte) and never stores or
// copies the body, it only counts it: at 1M payloads and thousands of responses per second
// the client must stay O(1) per read. Headers are copied only when a line spans reads.
//
// The caller timestamps the first response byte itself (on its first read); the parser says
// when the response is complete, its status, body size and whether the connection may be
// reused. Failures come as a class (recorded per connection as data) plus a message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/parse_result.h"
#include "http/syntax.h"

namespace pqc {

enum class HttpErrorClass {
  kNone,
  kBadStatusLine,     // not "HTTP/1.x NNN reason", or an unexpected 101
  kBadHeader,         // malformed field line, obsolete line folding, control characters
  kHeadersTooLarge,   // header section (or trailer section) over the limit
  kBadContentLength,  // not a number, conflicting values, or together with Transfer-Encoding
  kBadChunk,          // bad chunk-size line
  kBodyTooLong,       // chunk data longer than its declared size
  kTruncated,         // connection closed before the response was complete
};

// HttpErrorName: stable kebab-case name ("bad-chunk") used in results and reports.
std::string_view HttpErrorName(HttpErrorClass c);

class ResponseParser {
 public:
  static constexpr size_t kDefaultMaxHeaderBytes = 64 * 1024;

  explicit ResponseParser(size_t max_header_bytes = kDefaultMaxHeaderBytes);

  // Reset: start over for the next response on a keep-alive connection. head_request tells
  // that the request was HEAD, whose response has headers but no body.
  void Reset(bool head_request = false);

  // Feed: parses data. kComplete returns as soon as the response ends; bytes after it
  // (data.size() - consumed) belong to whatever comes next. With Content-Length the parser
  // cannot tell a body longer than declared from a pipelined next response: a caller that
  // did not pipeline treats leftover bytes as kBodyTooLong. After kComplete or kError,
  // Feed consumes nothing until Reset. On kError the connection is unusable and consumed
  // only says where the error was noticed.
  ParseResult Feed(std::string_view data);

  // FeedEof: the peer closed the connection. Completes a body delimited by close, otherwise
  // an unfinished response is a kTruncated error.
  ParseStatus FeedEof();

  ParseStatus status() const;
  bool started() const { return started_; }  // any byte of this response seen
  bool headers_done() const;
  int status_code() const { return status_code_; }
  uint64_t body_bytes() const { return body_bytes_; }
  // keep_alive: the connection may carry another request (meaningful once complete).
  bool keep_alive() const { return keep_alive_; }
  HttpErrorClass error_class() const { return error_class_; }
  const std::string& error_message() const { return error_message_; }

 private:
  enum class State {
    kStatusLine,
    kHeaders,
    kBodyLength,
    kBodyUntilClose,
    kChunkSize,
    kChunkData,
    kChunkDataEnd,
    kTrailers,
    kDone,
    kError,
  };

  // Each returns false after recording an error.
  bool OnStatusLine(std::string_view line);
  bool OnHeaderLine(std::string_view line);
  bool OnHeadersEnd();
  bool OnChunkSizeLine(std::string_view line);
  bool OnTrailerLine(std::string_view line);
  bool Fail(HttpErrorClass c, std::string message);
  size_t LineBudget() const;

  size_t max_header_bytes_;
  http::LineReader line_;
  State state_ = State::kStatusLine;
  bool head_request_ = false;
  bool started_ = false;
  size_t header_bytes_ = 0;  // of the current header or trailer section

  int status_code_ = 0;
  bool http10_ = false;
  bool has_content_length_ = false;
  uint64_t content_length_ = 0;
  bool has_transfer_encoding_ = false;
  bool chunked_ = false;
  bool connection_close_ = false;
  bool connection_keep_alive_ = false;

  bool keep_alive_ = false;
  uint64_t body_bytes_ = 0;
  uint64_t remaining_ = 0;  // of the Content-Length body or the current chunk

  HttpErrorClass error_class_ = HttpErrorClass::kNone;
  std::string error_message_;
};

}  // namespace pqc
