// h2_server_fuzz — libFuzzer target for the embedded server's HTTP/2 session
// (h2/server_session.h): the bytes a client we do not control sends, fed in the pieces the
// input chooses, the session's output drained after each piece as the server drains it (at
// most about one record at a time). Besides crashes it checks what the server relies on: a
// drain never runs far past its limit (what a connection holds stays bounded), a session that
// failed stays failed, and a failed one says why.
//
// Input (see split_input.h): the piece sizes, then the client's byte stream (the connection
// preface first, as any client's).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "h2/server_session.h"
#include "http/payload.h"
#include "split_input.h"

using pqc::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<char> payload = pqc::MakePayloadBuffer();
  const pqc::fuzz::SplitInput in(data, size);
  auto session = pqc::h2::ServerSession::Make(payload);
  Check(session.ok());
  pqc::h2::ServerSession& s = **session;
  const std::string_view stream = in.stream();
  bool failed = false;
  std::string out;
  for (size_t pos = 0, i = 0; pos < stream.size(); ++i) {
    const std::string_view part = stream.substr(pos, in.PieceSize(i));
    pos += part.size();
    const bool ok = s.Feed(part);
    if (failed) Check(!ok);
    if (!ok) {
      failed = true;
      Check(!s.error().empty());
    }
    // Drain as the server does: a record's worth at a time, each drain at most one frame past
    // the limit (a DATA frame is at most 16,384 bytes plus its 9-byte header).
    for (int drains = 0; drains < 64; ++drains) {
      out.clear();
      Check(s.Output(out, pqc::kWriteChunk).ok());
      Check(out.size() < pqc::kWriteChunk + 16'384 + 9 + 4096);
      if (out.empty()) break;
    }
  }
  return 0;
}
