// line_stream — one blocking TCP connection read as a buffer of lines (and of the byte runs
// some lines announce): reads that wait until a deadline (CLOCK_MONOTONIC), reads of what has
// already arrived, and writes of a whole message. The framing (where a line ends, what it
// means) is the caller's: the rendezvous's Channel is built on it.
#pragma once

#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/error.h"
#include "core/fd.h"

namespace pqc {

class LineStream {
 public:
  explicit LineStream(ScopedFd fd) : fd_(std::move(fd)) {}

  // Write: all of `bytes`, waiting while the socket's buffer is full until `deadline`
  // (CLOCK_MONOTONIC): a peer that stops reading ends the write with an error instead of
  // holding the writer. The error says "send failed: …" or "send timed out: …".
  Status Write(std::string_view bytes, Nanos deadline);

  enum class Filled { kMore, kTimedOut, kClosed };
  // Fill: waits until bytes arrive (appended to buffer()), the peer closes, or `deadline`
  // passes; past it, what has arrived already is still read. An error: "recv failed: …".
  Result<Filled> Fill(Nanos deadline);
  // FillNow: what has arrived, without waiting (kTimedOut: nothing yet).
  Result<Filled> FillNow();

  // The bytes received and not yet consumed.
  std::string_view buffer() const { return buf_; }
  void Consume(size_t n) { buf_.erase(0, n); }
  int fd() const { return fd_.get(); }

 private:
  Result<Filled> ReadOnce(int flags);
  ScopedFd fd_;
  std::string buf_;
};

}  // namespace pqc
