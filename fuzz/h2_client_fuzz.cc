// h2_client_fuzz — libFuzzer target for the client's HTTP/2 session (h2/client_session.h):
// the frames a server we do not control sends, fed as the load client feeds them, with the
// client's own output taken after each piece. Besides crashes it checks that the outcome does
// not depend on how the bytes were split into reads: a response complete either way, with the
// same status and body bytes — except where nghttp2 itself depends on it: Debian's 1.52, with the
// CONTINUATION-flood limit backported (CVE-2024-28182), fails a header block that ends in an
// empty CONTINUATION frame when fed one byte at a time and not when fed whole (the seed
// continuation_00), so a failure that names CONTINUATION is not compared. The same bytes are fed
// again to a session with two requests in flight (streams 1 and 3, as an arm's concurrent
// streams): each feed's events must name requests that exist, each at most once, report each
// response's end once and only after a final status, and kComplete exactly when one ended.
//
// Input (see split_input.h): the piece sizes, then the server's byte stream.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "h2/client_session.h"
#include "split_input.h"

using pqc::fuzz::Check;

namespace {

struct Outcome {
  pqc::h2::FeedStatus status = pqc::h2::FeedStatus::kNeedMore;
  uint32_t http_status = 0;
  uint64_t body = 0;
  bool continuation_limit = false;  // nghttp2's CONTINUATION limit ended it
};

// Begun: a session with `requests` GETs submitted and its first flight taken.
std::unique_ptr<pqc::h2::ClientSession> Begun(int requests) {
  auto session = pqc::h2::ClientSession::Make();
  Check(session.ok());
  for (int k = 0; k < requests; ++k) Check((*session)->SubmitGet("localhost", "/").ok());
  std::string out;
  Check((*session)->Output(out).ok());
  return std::move(*session);
}

// Run: one request, the stream fed in pieces of `piece(i)` bytes until it ends or fails.
template <typename PieceSize>
Outcome Run(std::string_view stream, PieceSize piece) {
  const auto session = Begun(1);
  pqc::h2::ClientSession& c = *session;
  std::string out;
  Outcome o;
  for (size_t pos = 0, i = 0; pos < stream.size() && o.status == pqc::h2::FeedStatus::kNeedMore;
       ++i) {
    const std::string_view part = stream.substr(pos, piece(i));
    pos += part.size();
    o.status = c.Feed(part).status;
    out.clear();
    // Acknowledgements, window updates, a GOAWAY after an error; sending can fail the response.
    if (!c.Output(out).ok() && o.status == pqc::h2::FeedStatus::kNeedMore) {
      o.status = pqc::h2::FeedStatus::kError;
    }
  }
  if (o.status == pqc::h2::FeedStatus::kComplete) {
    Check(c.response_complete());
    Check(c.status() >= 200 && c.status() <= 999);
  }
  if (o.status == pqc::h2::FeedStatus::kError) {
    Check(!c.error().empty());
    o.continuation_limit = c.error().find("CONTINUATION") != std::string::npos;
  }
  o.http_status = c.status();
  o.body = c.body_bytes();
  return o;
}

// RunTwo: two requests in flight, the stream fed in pieces; the events' invariants checked.
template <typename PieceSize>
void RunTwo(std::string_view stream, PieceSize piece) {
  const auto session = Begun(2);
  pqc::h2::ClientSession& c = *session;
  std::string out;
  std::array<int, 2> ended{};
  for (size_t pos = 0, i = 0; pos < stream.size(); ++i) {
    const std::string_view part = stream.substr(pos, piece(i));
    pos += part.size();
    const pqc::h2::FeedResult r = c.Feed(part);
    bool any_ended = false;
    for (size_t k = 0; k < r.events.size(); ++k) {
      const pqc::h2::StreamEvent& e = r.events[k];
      Check(e.request < c.responses());
      for (size_t j = 0; j < k; ++j) Check(r.events[j].request != e.request);
      if (e.completed) {
        Check(c.response(e.request).complete);
        Check(c.response(e.request).status >= 200);
        ++ended[e.request];
        any_ended = true;
      }
    }
    if (r.status == pqc::h2::FeedStatus::kError) {
      Check(!c.error().empty());
      break;
    }
    Check((r.status == pqc::h2::FeedStatus::kComplete) == any_ended);
    out.clear();
    if (!c.Output(out).ok()) break;
  }
  for (size_t k = 0; k < ended.size(); ++k) {
    Check(ended[k] <= 1);
    Check((ended[k] == 1) == c.response(k).complete);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pqc::fuzz::SplitInput in(data, size);
  const Outcome whole = Run(in.stream(), [&](size_t) { return in.stream().size(); });
  const Outcome pieces = Run(in.stream(), [&](size_t i) { return in.PieceSize(i); });
  RunTwo(in.stream(), [&](size_t i) { return in.PieceSize(i); });
  if (whole.continuation_limit || pieces.continuation_limit) return 0;
  // A response complete one way is complete the other, with the same status and body. When
  // a stream fails is not compared: nghttp2 closes a stream it reset as it frames the
  // RST_STREAM, and what else the same read brought (a broken frame after it) may end the
  // session before or after that (the seed stream_reset_then_broken_frame shows it).
  const bool complete = whole.status == pqc::h2::FeedStatus::kComplete;
  Check(complete == (pieces.status == pqc::h2::FeedStatus::kComplete));
  if (complete) {
    Check(whole.http_status == pieces.http_status);
    Check(whole.body == pieces.body);
  }
  return 0;
}
