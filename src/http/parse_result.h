// ParseResult — what an incremental HTTP parser says after each Feed. `consumed` matters
// because a read can carry the end of one message and the start of the next (pipelining, or
// a misbehaving peer): the caller keeps data[consumed..] for the next message.
#pragma once

#include <cstddef>

namespace pqc {

enum class ParseStatus { kNeedMore, kComplete, kError };

struct ParseResult {
  ParseStatus status;
  size_t consumed;
};

}  // namespace pqc
