#include "client/h2_exchange.h"

#include "client/connection.h"

namespace pqc {

Status H2Exchange::BeginRequest(bool /*last*/) {
  // The last request needs no mark of its own: Close sends the GOAWAY after its response.
  return session_->SubmitGet(env_.options->server_name, env_.options->path);
}

std::string_view H2Exchange::Output() {
  // New frames only once the last ones are out: a retried SSL_write must see the same bytes.
  if (offset_ == out_.size()) {
    out_.clear();
    offset_ = 0;
    if (Status s = session_->Output(out_); !s) {
      error_ = s.error().message;
      out_.clear();
    }
  }
  return std::string_view(out_).substr(offset_);
}

void H2Exchange::Wrote(size_t n) {
  if (!heard_) written_.append(out_, offset_, n);
  offset_ += n;
}

void H2Exchange::Rewind() {
  out_ = written_ + out_.substr(offset_);
  offset_ = 0;
  written_.clear();
}

ExchangeStep H2Exchange::Feed(std::string_view in) {
  heard_ = true;
  written_.clear();
  const h2::FeedResult r = session_->Feed(in);
  // Request i is the session's i-th stream: each BeginRequest submits one.
  events_.clear();
  for (const h2::StreamEvent& e : r.events) {
    const h2::Response& response = session_->response(e.request);
    events_.push_back({.request = e.request,
                       .began = e.began,
                       .completed = e.completed,
                       .status = e.completed ? response.status : 0,
                       .body_bytes = e.completed ? response.body_bytes : 0});
  }
  ExchangeStep step;
  step.events = events_;
  // The session stops counting at the first response: later ones leave the count as it was.
  if (r.response_began) record_.h2_frames_before_response = session_->frames_before_response();
  switch (r.status) {
    case h2::FeedStatus::kNeedMore:
      break;
    case h2::FeedStatus::kComplete:
      step.status = ExchangeStep::kComplete;
      break;
    case h2::FeedStatus::kError:
      error_ = session_->error();
      step.status = ExchangeStep::kError;
      break;
  }
  return step;
}

ExchangeStep H2Exchange::FeedEof() {
  // HTTP/2 delimits every response by its frames: a close ends none.
  error_ = session_->all_complete()
               ? "the server closed the connection (HTTP/2 needs no close to end a response)"
               : "server closed the connection before the response was complete";
  return {ExchangeStep::kError, {}};
}

}  // namespace pqc
