// http_response_fuzz — libFuzzer target for ResponseParser, the code that reads bytes from
// servers we do not control. Besides crashes, it checks the parser's central promise: the
// outcome does not depend on how the bytes were split into reads.
//
// Input (see split_input.h): flags bit 7 = the request was HEAD; then the piece sizes; the
// rest is the response stream, possibly several pipelined responses.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/response_parser.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pqc::fuzz::SplitInput in(data, size);
  const bool head = (in.flags() & 0x80) != 0;
  std::string_view input = in.stream();

  // Up to a few responses on one keep-alive connection, as the load generator reads them.
  for (int response = 0; response < 4; ++response) {
    pqc::ResponseParser whole;
    whole.Reset(head);
    const pqc::ParseResult rw = whole.Feed(input);
    Check(rw.consumed <= input.size());
    Check(rw.status == whole.status());

    pqc::ResponseParser pieces;
    pieces.Reset(head);
    size_t consumed = 0;
    for (size_t pos = 0, i = 0;
         pos < input.size() && pieces.status() == pqc::ParseStatus::kNeedMore; ++i) {
      const std::string_view piece = input.substr(pos, in.PieceSize(i));
      const pqc::ParseResult r = pieces.Feed(piece);
      Check(r.consumed <= piece.size());
      Check(r.status == pieces.status());
      consumed += r.consumed;
      pos += piece.size();
    }

    Check(whole.status() == pieces.status());
    Check(whole.error_class() == pieces.error_class());
    Check((whole.error_class() == pqc::HttpErrorClass::kNone) ==
          (whole.status() != pqc::ParseStatus::kError));
    if (whole.status() == pqc::ParseStatus::kComplete) {
      Check(rw.consumed == consumed);
      Check(whole.status_code() == pieces.status_code());
      Check(whole.status_code() >= 100 && whole.status_code() <= 999);
      Check(whole.body_bytes() == pieces.body_bytes());
      Check(whole.keep_alive() == pieces.keep_alive());
      Check(whole.body_bytes() <= input.size());
      Check(!head || whole.body_bytes() == 0);
      // Whatever follows is the next response on a keep-alive connection.
      input.remove_prefix(rw.consumed);
      if (input.empty() || !whole.keep_alive()) break;
      continue;
    }
    if (whole.status() == pqc::ParseStatus::kNeedMore) {
      const pqc::ParseStatus ew = whole.FeedEof();
      Check(ew == pieces.FeedEof());
      Check(ew != pqc::ParseStatus::kNeedMore);
      Check(whole.error_class() == pieces.error_class());
      Check(whole.body_bytes() == pieces.body_bytes());
    } else {
      Check(!whole.error_message().empty());
      Check(!pqc::HttpErrorName(whole.error_class()).empty());
    }
    break;
  }
  return 0;
}
