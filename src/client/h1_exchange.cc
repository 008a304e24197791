#include "client/h1_exchange.h"

#include <fmt/format.h>

#include "client/connection.h"

namespace pqc {

Status H1Exchange::BeginRequest(bool last) {
  request_ = last ? &env_.request_close : &env_.request_keep_alive;
  ++requests_;
  offset_ = 0;
  awaiting_ = true;
  began_ = false;
  parser_.Reset();
  return {};
}

std::string_view H1Exchange::Output() {
  if (request_ == nullptr) return {};
  return std::string_view(*request_).substr(offset_);
}

ExchangeStep H1Exchange::Step(ExchangeStep::Status status, bool began, bool completed) {
  event_ = {.request = requests_ - 1,
            .began = began,
            .completed = completed,
            .status = completed ? static_cast<uint32_t>(parser_.status_code()) : 0,
            .body_bytes = completed ? parser_.body_bytes() : 0};
  ExchangeStep step{status, {}};
  if (began || completed) step.events = {&event_, 1};
  return step;
}

ExchangeStep H1Exchange::Feed(std::string_view in) {
  if (!awaiting_) {
    error_ = "unexpected data from the server between requests";
    return {ExchangeStep::kError, {}};
  }
  const bool began = !began_;
  began_ = true;
  const ParseResult r = parser_.Feed(in);
  if (r.status == ParseStatus::kError) {
    error_ = fmt::format("{}: {}", HttpErrorName(parser_.error_class()), parser_.error_message());
    return Step(ExchangeStep::kError, began, false);
  }
  if (r.status == ParseStatus::kNeedMore) return Step(ExchangeStep::kNeedMore, began, false);
  awaiting_ = false;
  if (r.consumed < in.size()) {
    error_ = fmt::format("{} bytes after the end of the response", in.size() - r.consumed);
    return Step(ExchangeStep::kError, began, false);
  }
  return Step(ExchangeStep::kComplete, began, true);
}

ExchangeStep H1Exchange::FeedEof() {
  // A clean end of stream completes only a body that runs until close.
  if (awaiting_ && parser_.FeedEof() == ParseStatus::kComplete) {
    awaiting_ = false;
    return Step(ExchangeStep::kComplete, false, true);
  }
  error_ = "server closed the connection before the response was complete";
  return {ExchangeStep::kError, {}};
}

}  // namespace pqc
