#include "h2/server_session.h"

#include <fmt/format.h>
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>

#include "h2/session_callbacks.h"
#include "http/payload.h"
#include "http/routes.h"

namespace pqc::h2 {
namespace {

int ServerFrameReceived(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<ServerSession*>(user);
  if (frame->hd.type == NGHTTP2_GOAWAY) self->OnPeerGoaway();
  // A request ends with the END_STREAM flag on its HEADERS (a GET) or on its last DATA frame.
  if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
      (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
    return self->OnRequestEnd(frame->hd.stream_id);
  }
  return 0;
}

ssize_t ReadBodyChunk(nghttp2_session*, int32_t stream, uint8_t* buf, size_t length,
                      uint32_t* flags, nghttp2_data_source*, void* user) {
  bool eof = false;
  const size_t n = static_cast<ServerSession*>(user)->ReadBody(stream, buf, length, &eof);
  if (eof) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace

Result<std::unique_ptr<ServerSession>> ServerSession::Make(std::span<const char> payload) {
  std::unique_ptr<ServerSession> s(new ServerSession());
  s->payload_ = payload;
  nghttp2_session_callbacks* cb = nullptr;
  nghttp2_option* opt = nullptr;
  if (nghttp2_session_callbacks_new(&cb) != 0 || nghttp2_option_new(&opt) != 0) {
    nghttp2_session_callbacks_del(cb);
    return MakeError(ErrorKind::kSystem, "HTTP/2: out of memory for the session");
  }
  SetCommonCallbacks<ServerSession, NGHTTP2_HCAT_REQUEST>(cb);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, ServerFrameReceived);
  nghttp2_option_set_stream_reset_rate_limit(opt, kResetBurst, kResetRate);
  nghttp2_option_set_max_continuations(opt, kMaxContinuations);
  nghttp2_option_set_max_outbound_ack(opt, kMaxOutboundAcks);
  nghttp2_option_set_max_settings(opt, kMaxSettingsEntries);
  const int rc = nghttp2_session_server_new2(&s->session_, cb, s.get(), opt);
  nghttp2_session_callbacks_del(cb);
  nghttp2_option_del(opt);
  if (rc != 0) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("HTTP/2: creating the session: {}", nghttp2_strerror(rc)));
  }
  const std::array<nghttp2_settings_entry, 2> settings{{
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, kMaxConcurrentStreams},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, kMaxHeaderListBytes},
  }};
  if (Status st = SubmitSettings(s->session_, settings, "the server's"); !st) return st.error();
  return s;
}

ServerSession::~ServerSession() {
  nghttp2_session_del(session_);
}

bool ServerSession::Feed(std::string_view in) {
  if (!error_.empty()) return false;
  const ssize_t n =
      nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(in.data()), in.size());
  if (n < 0) {
    // NGHTTP2_ERR_FLOODED (queued acknowledgements) or a callback's failure: nghttp2 has
    // queued its GOAWAY where it could.
    error_ = fmt::format("the client broke HTTP/2 ({})", nghttp2_strerror(static_cast<int>(n)));
    nghttp2_session_terminate_session(session_, NGHTTP2_ENHANCE_YOUR_CALM);
    return false;
  }
  // A client's own GOAWAY is no error: the session is Done once both sides have said all.
  return error_.empty();
}

Status ServerSession::Output(std::string& out, size_t limit) {
  while (out.size() < limit) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      return MakeError(ErrorKind::kSystem, fmt::format("HTTP/2: framing output: {}",
                                                       nghttp2_strerror(static_cast<int>(n))));
    }
    if (n == 0) break;
    out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
  return {};
}

bool ServerSession::Done() const {
  return nghttp2_session_want_read(session_) == 0 && nghttp2_session_want_write(session_) == 0;
}

bool ServerSession::Failed() const {
  // nghttp2 ends a session itself, with no error reported, at some of its limits (the stream
  // resets' token bucket, too many SETTINGS entries): Done with no GOAWAY from the client.
  return !error_.empty() || (Done() && !peer_goaway_);
}

void ServerSession::Shutdown() {
  nghttp2_session_terminate_session(session_, NGHTTP2_NO_ERROR);
}

ServerCounts ServerSession::TakeCounts() {
  ServerCounts c = counts_;
  counts_ = {};
  return c;
}

void ServerSession::OnBeginHeaders(int32_t stream) {
  streams_[stream] = Stream{};
}

void ServerSession::OnHeader(int32_t stream, std::string_view name, std::string_view value) {
  auto it = streams_.find(stream);
  if (it == streams_.end()) return;
  if (name == ":path") {
    it->second.path = value;  // bounded by kMaxHeaderListBytes
  } else if (name == ":method") {
    it->second.get = value == "GET" || value == "HEAD";
    it->second.head = value == "HEAD";
  }
}

int ServerSession::OnRequestEnd(int32_t stream) {
  auto it = streams_.find(stream);
  if (it == streams_.end()) return 0;
  Stream& s = it->second;
  ++counts_.requests;
  Route route;
  if (!s.get || s.path.empty()) {
    route = ErrorRoute(s.get ? 400 : 405);
    ++counts_.bad_requests;
  } else {
    route = ResolveRoute(s.path);
    if (route.status == 404) ++counts_.not_found;
  }
  s.is_payload = route.is_payload;
  s.text = route.text;
  s.size = route.is_payload ? route.body_size : route.text.size();
  const std::string status = std::to_string(route.status);
  const std::string length = std::to_string(s.size);
  const std::array<nghttp2_nv, 3> head{
      Nv(":status", status), Nv("content-length", length),
      Nv("content-type", route.is_payload ? "application/octet-stream" : "text/plain")};
  nghttp2_data_provider body{};
  body.read_callback = ReadBodyChunk;
  const bool bodiless = s.head || s.size == 0;
  return nghttp2_submit_response(session_, stream, head.data(), head.size(),
                                 bodiless ? nullptr : &body) == 0
             ? 0
             : NGHTTP2_ERR_CALLBACK_FAILURE;
}

size_t ServerSession::ReadBody(int32_t stream, uint8_t* buf, size_t length, bool* eof) {
  auto it = streams_.find(stream);
  if (it == streams_.end()) {
    *eof = true;
    return 0;
  }
  Stream& s = it->second;
  const uint64_t left = s.size - s.offset;
  size_t n = static_cast<size_t>(std::min<uint64_t>(left, length));
  if (s.is_payload) {
    const std::span<const char> chunk = PayloadChunk(payload_, s.offset, n);
    n = chunk.size();
    std::copy_n(chunk.data(), n, buf);
  } else {
    std::copy_n(s.text.data() + s.offset, n, buf);
  }
  s.offset += n;
  *eof = s.offset == s.size;
  return n;
}

void ServerSession::OnStreamClose(int32_t stream, uint32_t /*code*/) {
  streams_.erase(stream);
}

void ServerSession::OnLibraryError(std::string_view message) {
  if (error_.empty()) error_ = fmt::format("the client broke HTTP/2 ({})", message);
}

}  // namespace pqc::h2
