// http_request_fuzz — libFuzzer target for RequestParser, the embedded target's reader of
// whatever clients send. Checks, besides crashes: the outcome does not depend on how the bytes
// were split into reads, pipelined requests are taken one at a time, and the answer the
// server would give (ResolveRoute + AppendResponseHead) is a response our own ResponseParser
// accepts with the same status — the server and the load generator agree on the wire format.
//
// Input (see split_input.h): the piece sizes, then the request stream.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/request_parser.h"
#include "http/response_parser.h"
#include "http/routes.h"
#include "split_input.h"

namespace {

using pqc::fuzz::Check;

// CheckAnswer: the head the server would send for a parsed request parses back.
void CheckAnswer(const pqc::RequestParser& request) {
  const pqc::Route route = pqc::ResolveRoute(request.target());
  Check(route.status == 200 || route.status == 404);
  Check(route.body_size <= pqc::kMaxPayloadBytes);
  std::string head;
  pqc::AppendResponseHead(route, request.keep_alive(), &head);
  pqc::ResponseParser response;
  response.Reset(request.is_head());
  const pqc::ParseResult r = response.Feed(head);
  Check(r.consumed == head.size());
  Check(response.headers_done());
  Check(response.status_code() == route.status);
  if (request.is_head() || route.body_size == 0) {
    Check(r.status == pqc::ParseStatus::kComplete);
    Check(response.keep_alive() == request.keep_alive());
  } else {
    Check(r.status == pqc::ParseStatus::kNeedMore);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pqc::fuzz::SplitInput in(data, size);
  std::string_view input = in.stream();

  pqc::RequestParser whole;  // reused with Reset, as the server does per connection
  for (int request = 0; request < 4 && !input.empty(); ++request) {
    whole.Reset();
    const pqc::ParseResult rw = whole.Feed(input);
    Check(rw.consumed <= input.size());
    Check(rw.status == whole.status());

    pqc::RequestParser pieces;
    size_t consumed = 0;
    for (size_t pos = 0, i = 0;
         pos < input.size() && pieces.status() == pqc::ParseStatus::kNeedMore; ++i) {
      const std::string_view piece = input.substr(pos, in.PieceSize(i));
      const pqc::ParseResult r = pieces.Feed(piece);
      Check(r.consumed <= piece.size());
      consumed += r.consumed;
      pos += piece.size();
    }

    Check(whole.status() == pieces.status());
    Check(whole.error_class() == pieces.error_class());
    if (whole.status() == pqc::ParseStatus::kError) {
      Check(whole.error_class() != pqc::RequestErrorClass::kNone);
      Check(!whole.error_message().empty());
      Check(!whole.keep_alive());
      const int status = pqc::StatusForRequestError(whole.error_class());
      Check(status >= 400 && status < 500);
      Check(!pqc::ReasonPhrase(status).empty());
      break;
    }
    if (whole.status() == pqc::ParseStatus::kNeedMore) break;

    Check(rw.consumed == consumed);
    Check(whole.target() == pieces.target());
    Check(whole.is_head() == pieces.is_head());
    Check(whole.keep_alive() == pieces.keep_alive());
    Check(!whole.target().empty() && whole.target().front() == '/');
    CheckAnswer(whole);
    // A pipelined next request follows on the same connection.
    input.remove_prefix(rw.consumed);
    if (!whole.keep_alive()) break;
  }
  return 0;
}
