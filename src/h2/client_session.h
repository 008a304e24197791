// client_session — the client's side of HTTP/2 (RFC 9113) as bytes in and bytes out: nghttp2's
// session with no I/O of its own, so that the load client drives it over its TLS stream (and a
// fuzz target over nothing). GET requests, one stream each; the response's status, the instant
// its HEADERS began (the first byte of the response proper: the server's SETTINGS and
// WINDOW_UPDATE are the connection's, not the response's), body bytes and end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"

struct nghttp2_session;

namespace pqc::h2 {

// The windows the client announces: h2load's defaults (2^30 - 1 for each stream and for the
// connection), so that no response waits on flow control and the first flights of the two
// clients match in the cross-check.
inline constexpr int32_t kClientWindow = (1 << 30) - 1;

enum class FeedStatus { kNeedMore, kComplete, kError };

struct FeedResult {
  FeedStatus status = FeedStatus::kNeedMore;
  // response_began: the current response's HEADERS arrived in this feed.
  bool response_began = false;
};

class ClientSession {
 public:
  // Make: a session whose first output is the connection preface, the client's SETTINGS and
  // its connection WINDOW_UPDATE (nothing is sent until Output is called).
  static Result<std::unique_ptr<ClientSession>> Make();
  ClientSession(const ClientSession&) = delete;
  ClientSession& operator=(const ClientSession&) = delete;
  ~ClientSession();

  // SubmitGet: a GET of `path` from `authority` on a new stream, which becomes the current
  // response; one at a time (the previous one complete).
  Status SubmitGet(std::string_view authority, std::string_view path);
  // Output: appends what the session has to send now (frames of requests, acknowledgements,
  // window updates) to `out`; an error when the response has failed (error() says why), which
  // sending can reveal (a stream nghttp2 resets closes as its RST_STREAM is framed).
  Status Output(std::string& out);
  // Feed: bytes from the server. kComplete when they ended the current response; kError when
  // the server broke the protocol, reset the stream or went away before the response ended
  // (error() says which).
  FeedResult Feed(std::string_view in);
  // Terminate: queues a GOAWAY (no error), the client's last frame.
  void Terminate();

  bool response_complete() const { return complete_; }
  uint32_t status() const { return status_; }
  uint64_t body_bytes() const { return body_bytes_; }
  // goaway: the server said it will take no new stream.
  bool goaway() const { return goaway_; }
  // frames_before_response: frames received before the first response began — the server's
  // SETTINGS, WINDOW_UPDATE and acknowledgements, which ride with or after its TLS flight.
  uint32_t frames_before_response() const { return frames_before_response_; }
  const std::string& error() const { return error_; }

  // nghttp2's callbacks' entry points.
  void OnBeginHeaders(int32_t stream);
  void OnHeader(int32_t stream, std::string_view name, std::string_view value);
  void OnData(int32_t stream, size_t bytes);
  void OnFrame(uint8_t flags, int32_t stream);
  void OnGoaway(int32_t last_stream, uint32_t code);
  void OnStreamClose(int32_t stream, uint32_t code);
  void OnLibraryError(std::string_view message);

 private:
  ClientSession() = default;
  FeedResult Failed(std::string why);

  nghttp2_session* session_ = nullptr;
  int32_t stream_ = -1;
  bool began_ = false;
  bool began_now_ = false;
  bool complete_ = false;
  bool completed_now_ = false;
  bool goaway_ = false;
  bool any_response_ = false;
  uint32_t status_ = 0;
  uint64_t body_bytes_ = 0;
  uint32_t frames_before_response_ = 0;
  std::string error_;
  std::string library_error_;
};

}  // namespace pqc::h2
