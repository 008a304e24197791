// client_session — the client's side of HTTP/2 (RFC 9113) as bytes in and bytes out: nghttp2's
// session with no I/O of its own, so that the load client drives it over its TLS stream (and a
// fuzz target over nothing). GET requests, one stream each, as many at once as the caller
// submits; per response its status, the feed its HEADERS began in (the first byte of the
// response proper: the server's SETTINGS and WINDOW_UPDATE are the connection's, not the
// response's), body bytes and end.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

struct nghttp2_session;

namespace pqc::h2 {

// The windows the client announces: h2load's defaults (2^30 - 1 for each stream and for the
// connection), so that no response waits on flow control and the first flights of the two
// clients match in the cross-check.
inline constexpr int32_t kClientWindow = (1 << 30) - 1;

enum class FeedStatus { kNeedMore, kComplete, kError };

// Response: one request's answer, by the order the requests were submitted in.
struct Response {
  int32_t stream = 0;
  bool began = false;     // its HEADERS arrived
  bool complete = false;  // its END_STREAM arrived, after a final status
  uint32_t status = 0;
  uint64_t body_bytes = 0;
};

// StreamEvent: what one feed did to one response (`request`: its submission index).
struct StreamEvent {
  size_t request = 0;
  bool began = false;
  bool completed = false;
};

struct FeedResult {
  // kComplete when the feed ended at least one response (events say which).
  FeedStatus status = FeedStatus::kNeedMore;
  // response_began: a response's HEADERS arrived in this feed.
  bool response_began = false;
  // events: the responses this feed began or ended, each once; valid until the next Feed.
  std::span<const StreamEvent> events;
};

class ClientSession {
 public:
  // Make: a session whose first output is the connection preface, the client's SETTINGS and
  // its connection WINDOW_UPDATE (nothing is sent until Output is called).
  static Result<std::unique_ptr<ClientSession>> Make();
  ClientSession(const ClientSession&) = delete;
  ClientSession& operator=(const ClientSession&) = delete;
  ~ClientSession();

  // SubmitGet: a GET of `path` from `authority` on a new stream, which becomes the latest
  // response; any number may be open at once (the server's SETTINGS bound how many it takes:
  // nghttp2 holds back the streams beyond its limit until others close).
  Status SubmitGet(std::string_view authority, std::string_view path);
  // Output: appends what the session has to send now (frames of requests, acknowledgements,
  // window updates) to `out`; an error when the response has failed (error() says why), which
  // sending can reveal (a stream nghttp2 resets closes as its RST_STREAM is framed).
  Status Output(std::string& out);
  // Feed: bytes from the server. kComplete when they ended a response; kError when the server
  // broke the protocol, reset a stream or went away before a response ended (error() says
  // which).
  FeedResult Feed(std::string_view in);
  // Terminate: queues a GOAWAY (no error), the client's last frame.
  void Terminate();

  // response(i): the answer to the i-th request submitted (i < responses()).
  const Response& response(size_t request) const { return responses_[request]; }
  size_t responses() const { return responses_.size(); }
  // The latest request's answer.
  bool response_complete() const { return !responses_.empty() && responses_.back().complete; }
  uint32_t status() const { return responses_.empty() ? 0 : responses_.back().status; }
  uint64_t body_bytes() const { return responses_.empty() ? 0 : responses_.back().body_bytes; }
  bool all_complete() const;
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
  // Find: the request a stream of ours carries, or nullptr (stream 0, a stream not ours).
  Response* Find(int32_t stream, size_t* request = nullptr);
  // Note: records what this feed did to a request, once per request.
  void Note(size_t request, bool began, bool completed);

  nghttp2_session* session_ = nullptr;
  std::vector<Response> responses_;
  std::vector<StreamEvent> events_;  // this feed's
  bool goaway_ = false;
  bool any_response_ = false;
  uint32_t frames_before_response_ = 0;
  std::string error_;
  std::string library_error_;
};

}  // namespace pqc::h2
