#include "net/line_stream.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pqc {

Status LineStream::Write(std::string_view bytes, Nanos deadline) {
  size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n =
        ::send(fd_.get(), bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      const Nanos left = deadline - MonotonicNow();
      if (left <= 0) {
        return MakeError(ErrorKind::kIo,
                         fmt::format("send timed out: the peer has not read for a while ({} of "
                                     "{} bytes sent)",
                                     off, bytes.size()));
      }
      pollfd p{fd_.get(), POLLOUT, 0};
      (void)::poll(&p, 1, static_cast<int>(std::min<Nanos>(left / 1'000'000 + 1, 1000)));
      continue;
    }
    if (n <= 0) {
      return MakeError(ErrorKind::kIo, fmt::format("send failed: {}", std::strerror(errno)));
    }
    off += static_cast<size_t>(n);
  }
  return {};
}

Result<LineStream::Filled> LineStream::ReadOnce(int flags) {
  for (;;) {
    char chunk[4096];
    const ssize_t n = ::recv(fd_.get(), chunk, sizeof chunk, flags);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return Filled::kTimedOut;
    if (n == 0) return Filled::kClosed;
    if (n < 0) {
      return MakeError(ErrorKind::kIo, fmt::format("recv failed: {}", std::strerror(errno)));
    }
    buf_.append(chunk, static_cast<size_t>(n));
    return Filled::kMore;
  }
}

Result<LineStream::Filled> LineStream::Fill(Nanos deadline) {
  for (;;) {
    const Nanos left = deadline - MonotonicNow();
    pollfd p{fd_.get(), POLLIN, 0};
    const int ms = left <= 0 ? 0 : static_cast<int>(std::min<Nanos>(left / 1'000'000 + 1, 60'000));
    const int r = ::poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0 && left <= 0) return Filled::kTimedOut;
    if (r <= 0) continue;
    auto got = ReadOnce(MSG_DONTWAIT);
    if (!got) return got.error();
    if (*got == Filled::kTimedOut) continue;  // woken, nothing there after all
    return *got;
  }
}

Result<LineStream::Filled> LineStream::FillNow() {
  return ReadOnce(MSG_DONTWAIT);
}

}  // namespace pqc
