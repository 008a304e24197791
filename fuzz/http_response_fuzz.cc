// http_response_fuzz — libFuzzer target for ResponseParser, the code that reads bytes from
// servers we do not control. Besides crashes, it checks the parser's central promise: the
// outcome does not depend on how the bytes were split into reads.
//
// Input: byte 0 picks the piece size (low 7 bits + 1) and HEAD (high bit); the rest is the
// response stream.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/response_parser.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t step = (data[0] & 0x7f) + 1u;
  const bool head = (data[0] & 0x80) != 0;
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  pqc::ResponseParser whole;
  whole.Reset(head);
  pqc::ParseResult rw = whole.Feed(input);
  Check(rw.consumed <= input.size());
  Check(rw.status == whole.status());

  pqc::ResponseParser pieces;
  pieces.Reset(head);
  size_t consumed = 0;
  for (size_t pos = 0; pos < input.size() && pieces.status() == pqc::ParseStatus::kNeedMore;
       pos += step) {
    pqc::ParseResult r = pieces.Feed(input.substr(pos, step));
    Check(r.consumed <= step);
    consumed += r.consumed;
  }

  Check(whole.status() == pieces.status());
  Check(whole.error_class() == pieces.error_class());
  if (whole.status() == pqc::ParseStatus::kComplete) {
    Check(rw.consumed == consumed);
    Check(whole.status_code() == pieces.status_code());
    Check(whole.body_bytes() == pieces.body_bytes());
    Check(whole.keep_alive() == pieces.keep_alive());
    Check(whole.body_bytes() <= input.size());
    // Whatever follows is the next response on a keep-alive connection.
    whole.Reset(head);
    whole.Feed(input.substr(rw.consumed));
  } else if (whole.status() == pqc::ParseStatus::kNeedMore) {
    Check(whole.FeedEof() == pieces.FeedEof());
    Check(whole.error_class() == pieces.error_class());
    Check(whole.body_bytes() == pieces.body_bytes());
  }
  return 0;
}
