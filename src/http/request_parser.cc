#include "http/request_parser.h"

#include <fmt/format.h>

#include <algorithm>

namespace pqc {

int StatusForRequestError(RequestErrorClass c) {
  switch (c) {
    case RequestErrorClass::kNone:
      return 200;
    case RequestErrorClass::kBadRequest:
      return 400;
    case RequestErrorClass::kTooLarge:
      return 431;
    case RequestErrorClass::kMethodNotAllowed:
      return 405;
  }
  return 400;
}

RequestParser::RequestParser(size_t max_bytes) : max_bytes_(max_bytes) {}

void RequestParser::Reset() {
  line_.Clear();
  state_ = State::kRequestLine;
  bytes_ = 0;
  target_.clear();
  user_agent_.clear();
  is_head_ = false;
  http10_ = false;
  has_host_ = false;
  connection_close_ = false;
  connection_keep_alive_ = false;
  keep_alive_ = false;
  error_class_ = RequestErrorClass::kNone;
  error_message_.clear();
}

ParseStatus RequestParser::status() const {
  if (state_ == State::kDone) return ParseStatus::kComplete;
  if (state_ == State::kError) return ParseStatus::kError;
  return ParseStatus::kNeedMore;
}

bool RequestParser::Fail(RequestErrorClass c, std::string message) {
  state_ = State::kError;
  error_class_ = c;
  error_message_ = std::move(message);
  keep_alive_ = false;
  return false;
}

ParseResult RequestParser::Feed(std::string_view data) {
  size_t pos = 0;
  while (pos < data.size() && (state_ == State::kRequestLine || state_ == State::kHeaders)) {
    size_t used = 0;
    std::string_view line;
    // The head's budget left, plus this line's start already counted in bytes_ (it was
    // counted twice: a head split inside a line was refused at about half its limit).
    const size_t budget = max_bytes_ - std::min(bytes_, max_bytes_) + line_.buffered();
    auto ls = line_.Next(data.substr(pos), budget, &used, &line);
    pos += used;
    bytes_ += used;
    if (ls == http::LineReader::Status::kNeedMore) break;
    if (ls == http::LineReader::Status::kTooLong) {
      Fail(RequestErrorClass::kTooLarge,
           fmt::format("request head larger than {} bytes", max_bytes_));
      break;
    }
    if (state_ == State::kRequestLine) {
      // RFC 9112 2.2: empty lines before the request line are ignored (some clients send
      // a stray CRLF after a previous request).
      if (!line.empty()) OnRequestLine(line);
    } else if (line.empty()) {
      OnHeadersEnd();
    } else {
      OnHeaderLine(line);
    }
  }
  return {status(), pos};
}

bool RequestParser::OnRequestLine(std::string_view line) {
  auto bad = [&](std::string_view why) {
    return Fail(RequestErrorClass::kBadRequest,
                fmt::format("{} in request line '{}'", why, http::Excerpt(line)));
  };
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return bad("missing target");
  size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return bad("missing version");
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!http::IsToken(method)) return bad("malformed method");
  if (target.empty() || target.front() != '/' ||
      !std::all_of(target.begin(), target.end(), [](char c) {
        auto u = static_cast<unsigned char>(c);
        return u > 0x20 && u < 0x7f;
      })) {
    return bad("target must be a path starting with '/'");
  }
  if (version == "HTTP/1.1") {
    http10_ = false;
  } else if (version == "HTTP/1.0") {
    http10_ = true;
  } else {
    return bad("unsupported version (HTTP/1.0 or HTTP/1.1 expected)");
  }
  if (method == "HEAD") {
    is_head_ = true;
  } else if (method != "GET") {
    return Fail(RequestErrorClass::kMethodNotAllowed,
                fmt::format("method '{}' not allowed (GET or HEAD only)", http::Excerpt(method)));
  }
  target_.assign(target);
  state_ = State::kHeaders;
  return true;
}

bool RequestParser::OnHeaderLine(std::string_view line) {
  std::string_view name;
  std::string_view value;
  if (line.front() == ' ' || line.front() == '\t' || !http::SplitHeaderLine(line, &name, &value)) {
    return Fail(RequestErrorClass::kBadRequest,
                fmt::format("malformed header line '{}'", http::Excerpt(line)));
  }
  if (http::EqualsIgnoreCase(name, "host")) {
    if (has_host_) return Fail(RequestErrorClass::kBadRequest, "more than one Host header");
    has_host_ = true;
  } else if (http::EqualsIgnoreCase(name, "user-agent")) {
    user_agent_.assign(value);  // bounded: the head is at most max_bytes
  } else if (http::EqualsIgnoreCase(name, "connection")) {
    connection_close_ = connection_close_ || http::HasToken(value, "close");
    connection_keep_alive_ = connection_keep_alive_ || http::HasToken(value, "keep-alive");
  } else if (http::EqualsIgnoreCase(name, "content-length")) {
    uint64_t n = 0;
    if (!http::ParseContentLength(value, &n)) {
      return Fail(RequestErrorClass::kBadRequest,
                  fmt::format("bad Content-Length '{}'", http::Excerpt(value)));
    }
    if (n != 0) return Fail(RequestErrorClass::kBadRequest, "request bodies are not supported");
  } else if (http::EqualsIgnoreCase(name, "transfer-encoding")) {
    return Fail(RequestErrorClass::kBadRequest, "request bodies are not supported");
  }
  return true;
}

bool RequestParser::OnHeadersEnd() {
  if (!http10_ && !has_host_) {
    return Fail(RequestErrorClass::kBadRequest, "HTTP/1.1 request without a Host header");
  }
  keep_alive_ = http10_ ? (connection_keep_alive_ && !connection_close_) : !connection_close_;
  state_ = State::kDone;
  return true;
}

}  // namespace pqc
