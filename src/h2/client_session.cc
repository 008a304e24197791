#include "h2/client_session.h"

#include <fmt/format.h>
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "h2/session_callbacks.h"

namespace pqc::h2 {
namespace {

int DataChunk(nghttp2_session*, uint8_t, int32_t stream, const uint8_t*, size_t len, void* user) {
  static_cast<ClientSession*>(user)->OnData(stream, len);
  return 0;
}

int ClientFrameReceived(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<ClientSession*>(user);
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    self->OnGoaway(frame->goaway.last_stream_id, frame->goaway.error_code);
  }
  self->OnFrame(frame->hd.flags, frame->hd.stream_id);
  return 0;
}

}  // namespace

Result<std::unique_ptr<ClientSession>> ClientSession::Make() {
  std::unique_ptr<ClientSession> s(new ClientSession());
  nghttp2_session_callbacks* cb = nullptr;
  if (nghttp2_session_callbacks_new(&cb) != 0) {
    return MakeError(ErrorKind::kSystem, "HTTP/2: out of memory for the session's callbacks");
  }
  SetCommonCallbacks<ClientSession, NGHTTP2_HCAT_RESPONSE>(cb);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, DataChunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, ClientFrameReceived);
  const int rc = nghttp2_session_client_new(&s->session_, cb, s.get());
  nghttp2_session_callbacks_del(cb);
  if (rc != 0) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("HTTP/2: creating the session: {}", nghttp2_strerror(rc)));
  }
  const std::array<nghttp2_settings_entry, 2> settings{{
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<uint32_t>(kClientWindow)},
  }};
  if (Status st = SubmitSettings(s->session_, settings, "the client's"); !st) return st.error();
  if (int r =
          nghttp2_session_set_local_window_size(s->session_, NGHTTP2_FLAG_NONE, 0, kClientWindow);
      r != 0) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("HTTP/2: the connection's window: {}", nghttp2_strerror(r)));
  }
  return s;
}

ClientSession::~ClientSession() {
  nghttp2_session_del(session_);
}

Status ClientSession::SubmitGet(std::string_view authority, std::string_view path) {
  const std::array<nghttp2_nv, 4> head{Nv(":method", "GET"), Nv(":scheme", "https"),
                                       Nv(":authority", authority), Nv(":path", path)};
  const int32_t id =
      nghttp2_submit_request(session_, nullptr, head.data(), head.size(), nullptr, nullptr);
  if (id < 0) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("HTTP/2: submitting GET {}: {}", path, nghttp2_strerror(id)));
  }
  responses_.push_back({.stream = id});
  return {};
}

bool ClientSession::all_complete() const {
  return std::all_of(responses_.begin(), responses_.end(),
                     [](const Response& r) { return r.complete; });
}

Response* ClientSession::Find(int32_t stream, size_t* request) {
  // nghttp2 numbers a client's streams 1, 3, 5, ... as they are submitted.
  if (stream <= 0 || stream % 2 == 0) return nullptr;
  const auto i = static_cast<size_t>(stream - 1) / 2;
  if (i >= responses_.size() || responses_[i].stream != stream) return nullptr;
  if (request != nullptr) *request = i;
  return &responses_[i];
}

void ClientSession::Note(size_t request, bool began, bool completed) {
  for (StreamEvent& e : events_) {
    if (e.request == request) {
      e.began = e.began || began;
      e.completed = e.completed || completed;
      return;
    }
  }
  events_.push_back({request, began, completed});
}

Status ClientSession::Output(std::string& out) {
  for (;;) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      return MakeError(ErrorKind::kSystem, fmt::format("HTTP/2: framing output: {}",
                                                       nghttp2_strerror(static_cast<int>(n))));
    }
    if (n == 0) break;
    out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
  // nghttp2 closes a stream it reset for the server's fault (a response without :status) as
  // it sends the RST_STREAM, here: the response has failed, and the caller must hear it now,
  // not at the next read, which may never come (the fuzz target found it).
  if (!error_.empty()) return MakeError(ErrorKind::kSystem, error_);
  return {};
}

FeedResult ClientSession::Feed(std::string_view in) {
  events_.clear();
  const ssize_t n =
      nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(in.data()), in.size());
  if (n < 0) {
    return Failed(
        fmt::format("the server broke HTTP/2 ({})", nghttp2_strerror(static_cast<int>(n))));
  }
  // Any protocol error nghttp2 met fails the connection: a server that breaks HTTP/2 is not
  // one to time (nghttp2 has queued its GOAWAY or RST_STREAM).
  if (!library_error_.empty()) {
    return Failed(fmt::format("the server broke HTTP/2 ({})", library_error_));
  }
  if (!error_.empty()) return Failed(error_);
  FeedResult r;
  r.events = events_;
  for (const StreamEvent& e : events_) {
    r.response_began = r.response_began || e.began;
    if (e.completed) r.status = FeedStatus::kComplete;
  }
  return r;
}

void ClientSession::Terminate() {
  nghttp2_session_terminate_session(session_, NGHTTP2_NO_ERROR);
}

FeedResult ClientSession::Failed(std::string why) {
  error_ = std::move(why);
  FeedResult r{FeedStatus::kError, false, events_};
  for (const StreamEvent& e : events_) r.response_began = r.response_began || e.began;
  return r;
}

void ClientSession::OnBeginHeaders(int32_t stream) {
  size_t request = 0;
  Response* r = Find(stream, &request);
  if (r == nullptr || r->began) return;
  r->began = any_response_ = true;
  Note(request, /*began=*/true, /*completed=*/false);
}

void ClientSession::OnHeader(int32_t stream, std::string_view name, std::string_view value) {
  Response* r = Find(stream);
  if (r == nullptr || name != ":status") return;
  uint32_t code = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), code);
  // nghttp2 has checked the pseudo-header's form (three digits); informational (1xx) heads
  // come before the final one, which is the response's.
  if (ec == std::errc() && end == value.data() + value.size() &&
      (r->status == 0 || r->status < 200)) {
    r->status = code;
  }
}

void ClientSession::OnData(int32_t stream, size_t bytes) {
  if (Response* r = Find(stream)) r->body_bytes += bytes;
}

void ClientSession::OnFrame(uint8_t flags, int32_t stream) {
  if (!any_response_) ++frames_before_response_;
  size_t request = 0;
  Response* r = Find(stream, &request);
  if (r != nullptr && !r->complete && (flags & NGHTTP2_FLAG_END_STREAM) != 0 && r->status >= 200) {
    r->complete = true;
    Note(request, /*began=*/false, /*completed=*/true);
  }
}

void ClientSession::OnGoaway(int32_t last_stream, uint32_t code) {
  goaway_ = true;
  for (const Response& r : responses_) {
    if (r.stream > last_stream && !r.complete && error_.empty()) {
      error_ = fmt::format("the server went away (GOAWAY {}) before answering stream {}",
                           nghttp2_http2_strerror(code), r.stream);
    }
  }
}

void ClientSession::OnLibraryError(std::string_view message) {
  if (library_error_.empty()) library_error_ = message;
}

void ClientSession::OnStreamClose(int32_t stream, uint32_t code) {
  const Response* r = Find(stream);
  if (r == nullptr || r->complete || !error_.empty()) return;
  error_ =
      code == NGHTTP2_NO_ERROR
          ? fmt::format("the server closed stream {} before the response ended", stream)
          : fmt::format("the server reset stream {} ({})", stream, nghttp2_http2_strerror(code));
}

}  // namespace pqc::h2
