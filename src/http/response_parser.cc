#include "http/response_parser.h"

#include <fmt/format.h>

#include <algorithm>

namespace pqc {
namespace {

constexpr size_t kMaxChunkSizeLine = 4096;  // size plus extensions
constexpr size_t kChunkDataEndBudget = 2;   // just CRLF

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::string_view HttpErrorName(HttpErrorClass c) {
  switch (c) {
    case HttpErrorClass::kNone:
      return "none";
    case HttpErrorClass::kBadStatusLine:
      return "bad-status-line";
    case HttpErrorClass::kBadHeader:
      return "bad-header";
    case HttpErrorClass::kHeadersTooLarge:
      return "headers-too-large";
    case HttpErrorClass::kBadContentLength:
      return "bad-content-length";
    case HttpErrorClass::kBadChunk:
      return "bad-chunk";
    case HttpErrorClass::kBodyTooLong:
      return "body-too-long";
    case HttpErrorClass::kTruncated:
      return "truncated";
  }
  return "unknown";
}

ResponseParser::ResponseParser(size_t max_header_bytes) : max_header_bytes_(max_header_bytes) {}

void ResponseParser::Reset(bool head_request) {
  line_.Clear();
  state_ = State::kStatusLine;
  head_request_ = head_request;
  started_ = false;
  header_bytes_ = 0;
  status_code_ = 0;
  http10_ = false;
  has_content_length_ = false;
  content_length_ = 0;
  has_transfer_encoding_ = false;
  chunked_ = false;
  connection_close_ = false;
  connection_keep_alive_ = false;
  keep_alive_ = false;
  body_bytes_ = 0;
  remaining_ = 0;
  error_class_ = HttpErrorClass::kNone;
  error_message_.clear();
}

ParseStatus ResponseParser::status() const {
  if (state_ == State::kDone) return ParseStatus::kComplete;
  if (state_ == State::kError) return ParseStatus::kError;
  return ParseStatus::kNeedMore;
}

bool ResponseParser::headers_done() const {
  return state_ != State::kStatusLine && state_ != State::kHeaders && state_ != State::kError;
}

bool ResponseParser::Fail(HttpErrorClass c, std::string message) {
  state_ = State::kError;
  error_class_ = c;
  error_message_ = std::move(message);
  return false;
}

size_t ResponseParser::LineBudget() const {
  switch (state_) {
    case State::kChunkSize:
      return kMaxChunkSizeLine;
    case State::kChunkDataEnd:
      return kChunkDataEndBudget;
    default:
      // What the head has left, plus the start of this line counted in header_bytes_ already.
      return max_header_bytes_ - std::min(header_bytes_, max_header_bytes_) + line_.buffered();
  }
}

ParseResult ResponseParser::Feed(std::string_view data) {
  size_t pos = 0;
  if (!data.empty() && state_ != State::kDone && state_ != State::kError) started_ = true;
  while (pos < data.size() && state_ != State::kDone && state_ != State::kError) {
    std::string_view in = data.substr(pos);
    switch (state_) {
      case State::kBodyLength:
      case State::kChunkData: {
        uint64_t take = std::min<uint64_t>(remaining_, in.size());
        remaining_ -= take;
        body_bytes_ += take;
        pos += static_cast<size_t>(take);
        if (remaining_ == 0)
          state_ = state_ == State::kBodyLength ? State::kDone : State::kChunkDataEnd;
        continue;
      }
      case State::kBodyUntilClose:
        body_bytes_ += in.size();
        pos = data.size();
        continue;
      default:
        break;
    }
    // Everything else is line-based.
    size_t used = 0;
    std::string_view line;
    http::LineReader::Status ls = line_.Next(in, LineBudget(), &used, &line);
    pos += used;
    if (state_ == State::kStatusLine || state_ == State::kHeaders || state_ == State::kTrailers) {
      header_bytes_ += used;
    }
    if (ls == http::LineReader::Status::kNeedMore) break;
    if (ls == http::LineReader::Status::kTooLong) {
      switch (state_) {
        case State::kChunkSize:
          Fail(HttpErrorClass::kBadChunk,
               fmt::format("chunk-size line longer than {} bytes", kMaxChunkSizeLine));
          break;
        case State::kChunkDataEnd:
          Fail(HttpErrorClass::kBodyTooLong, "chunk data longer than its declared size");
          break;
        default:
          Fail(HttpErrorClass::kHeadersTooLarge,
               fmt::format("{} section larger than {} bytes",
                           state_ == State::kTrailers ? "trailer" : "header", max_header_bytes_));
      }
      break;
    }
    switch (state_) {
      case State::kStatusLine:
        OnStatusLine(line);
        break;
      case State::kHeaders:
        if (line.empty()) {
          OnHeadersEnd();
        } else {
          OnHeaderLine(line);
        }
        break;
      case State::kChunkSize:
        OnChunkSizeLine(line);
        break;
      case State::kChunkDataEnd:
        if (!line.empty()) {
          Fail(HttpErrorClass::kBodyTooLong, "chunk data longer than its declared size");
        } else {
          state_ = State::kChunkSize;
        }
        break;
      case State::kTrailers:
        OnTrailerLine(line);
        break;
      default:
        break;
    }
  }
  return {status(), pos};
}

ParseStatus ResponseParser::FeedEof() {
  switch (state_) {
    case State::kDone:
    case State::kError:
      break;
    case State::kBodyUntilClose:
      state_ = State::kDone;
      keep_alive_ = false;
      break;
    case State::kStatusLine:
      if (!started_) {
        Fail(HttpErrorClass::kTruncated, "connection closed before any response byte");
        break;
      }
      [[fallthrough]];
    default:
      Fail(HttpErrorClass::kTruncated,
           fmt::format("connection closed mid-response ({} body bytes received{})", body_bytes_,
                       remaining_ > 0 ? fmt::format(", {} more expected", remaining_) : ""));
  }
  return status();
}

bool ResponseParser::OnStatusLine(std::string_view line) {
  // HTTP-version SP 3DIGIT [SP reason-phrase]; a missing SP before an empty reason is common
  // enough to accept.
  auto bad = [&] {
    return Fail(HttpErrorClass::kBadStatusLine,
                fmt::format("malformed status line '{}'", http::Excerpt(line)));
  };
  if (line.size() < 12 || line.substr(0, 5) != "HTTP/" || !IsDigit(line[5]) || line[6] != '.' ||
      !IsDigit(line[7]) || line[8] != ' ' || !IsDigit(line[9]) || !IsDigit(line[10]) ||
      !IsDigit(line[11])) {
    return bad();
  }
  if (line.size() > 12 && (line[12] != ' ' || !http::IsValidFieldValue(line.substr(13)))) {
    return bad();
  }
  if (line[5] != '1') {
    return Fail(HttpErrorClass::kBadStatusLine,
                fmt::format("unsupported HTTP version in '{}'", http::Excerpt(line)));
  }
  http10_ = line[7] == '0';
  status_code_ = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  if (status_code_ < 100) return bad();
  if (status_code_ == 101) {
    return Fail(HttpErrorClass::kBadStatusLine, "unexpected 101 Switching Protocols");
  }
  state_ = State::kHeaders;
  return true;
}

bool ResponseParser::OnHeaderLine(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t') {
    return Fail(HttpErrorClass::kBadHeader,
                fmt::format("obsolete line folding in header line '{}'", http::Excerpt(line)));
  }
  std::string_view name;
  std::string_view value;
  if (!http::SplitHeaderLine(line, &name, &value)) {
    return Fail(HttpErrorClass::kBadHeader,
                fmt::format("malformed header line '{}'", http::Excerpt(line)));
  }
  if (http::EqualsIgnoreCase(name, "content-length")) {
    uint64_t n = 0;
    if (!http::ParseContentLength(value, &n)) {
      return Fail(HttpErrorClass::kBadContentLength,
                  fmt::format("bad Content-Length '{}'", http::Excerpt(value)));
    }
    if (has_content_length_ && n != content_length_) {
      return Fail(HttpErrorClass::kBadContentLength,
                  fmt::format("conflicting Content-Length values {} and {}", content_length_, n));
    }
    has_content_length_ = true;
    content_length_ = n;
  } else if (http::EqualsIgnoreCase(name, "transfer-encoding")) {
    has_transfer_encoding_ = true;
    chunked_ = http::LastTokenIs(value, "chunked");
  } else if (http::EqualsIgnoreCase(name, "connection")) {
    connection_close_ = connection_close_ || http::HasToken(value, "close");
    connection_keep_alive_ = connection_keep_alive_ || http::HasToken(value, "keep-alive");
  }
  return true;
}

bool ResponseParser::OnHeadersEnd() {
  if (status_code_ < 200) {  // 1xx interim response (100, 103): the real one follows
    Reset(head_request_);
    started_ = true;
    return true;
  }
  keep_alive_ = http10_ ? (connection_keep_alive_ && !connection_close_) : !connection_close_;
  if (head_request_ || status_code_ == 204 || status_code_ == 304) {
    state_ = State::kDone;
    return true;
  }
  if (has_transfer_encoding_) {
    if (has_content_length_) {
      return Fail(HttpErrorClass::kBadContentLength,
                  "both Transfer-Encoding and Content-Length (ambiguous framing)");
    }
    if (chunked_) {
      state_ = State::kChunkSize;
      return true;
    }
  } else if (has_content_length_) {
    remaining_ = content_length_;
    state_ = remaining_ == 0 ? State::kDone : State::kBodyLength;
    return true;
  }
  // No usable length: the body runs until the server closes, so no reuse.
  keep_alive_ = false;
  state_ = State::kBodyUntilClose;
  return true;
}

bool ResponseParser::OnChunkSizeLine(std::string_view line) {
  uint64_t size = 0;
  size_t i = 0;
  for (; i < line.size(); ++i) {
    int v = HexValue(line[i]);
    if (v < 0) break;
    if (size > (uint64_t{1} << 59)) {
      return Fail(HttpErrorClass::kBadChunk,
                  fmt::format("chunk size too large in '{}'", http::Excerpt(line)));
    }
    size = size * 16 + static_cast<uint64_t>(v);
  }
  std::string_view rest = http::TrimOws(line.substr(i));
  if (i == 0 || (!rest.empty() && rest.front() != ';') || !http::IsValidFieldValue(rest)) {
    return Fail(HttpErrorClass::kBadChunk,
                fmt::format("malformed chunk-size line '{}'", http::Excerpt(line)));
  }
  if (size == 0) {
    header_bytes_ = 0;
    state_ = State::kTrailers;
  } else {
    remaining_ = size;
    state_ = State::kChunkData;
  }
  return true;
}

bool ResponseParser::OnTrailerLine(std::string_view line) {
  if (line.empty()) {
    state_ = State::kDone;
    return true;
  }
  std::string_view name;
  std::string_view value;
  if (line.front() == ' ' || line.front() == '\t' || !http::SplitHeaderLine(line, &name, &value)) {
    return Fail(HttpErrorClass::kBadHeader,
                fmt::format("malformed trailer line '{}'", http::Excerpt(line)));
  }
  return true;
}

}  // namespace pqc
