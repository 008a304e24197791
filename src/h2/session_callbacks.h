// session_callbacks — what nghttp2's callbacks do for either side's session: forward to the
// session object the callback's user data points at. One place, so that the client's and the
// server's sessions (client_session.cc, server_session.cc) differ only in what they do with it.
// pqc: internal
#pragma once

#include <fmt/format.h>
#include <nghttp2/nghttp2.h>

#include <span>
#include <string_view>

#include "core/error.h"

namespace pqc::h2 {

inline std::string_view Text(const uint8_t* data, size_t len) {
  return {reinterpret_cast<const char*>(data), len};
}

// SubmitSettings: a session's first SETTINGS (`whose` names them in the error: "the client's").
inline Status SubmitSettings(nghttp2_session* session,
                             std::span<const nghttp2_settings_entry> settings,
                             std::string_view whose) {
  if (int r = nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
      r != 0) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("HTTP/2: {} SETTINGS: {}", whose, nghttp2_strerror(r)));
  }
  return {};
}

// Nv: a header field for nghttp2, pointing at `name` and `value` (which nghttp2 copies).
inline nghttp2_nv Nv(std::string_view name, std::string_view value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

// OnBeginHeaders of `Session` for the header blocks of category `kCategory` (a request's on
// the server, a response's on the client).
template <typename Session, nghttp2_headers_category kCategory>
int BeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == kCategory) {
    static_cast<Session*>(user)->OnBeginHeaders(frame->hd.stream_id);
  }
  return 0;
}

template <typename Session>
int Header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
           const uint8_t* value, size_t valuelen, uint8_t, void* user) {
  static_cast<Session*>(user)->OnHeader(frame->hd.stream_id, Text(name, namelen),
                                        Text(value, valuelen));
  return 0;
}

template <typename Session>
int StreamClosed(nghttp2_session*, int32_t stream, uint32_t code, void* user) {
  static_cast<Session*>(user)->OnStreamClose(stream, code);
  return 0;
}

// LibraryError: nghttp2's account of a protocol error it met (it answers with a GOAWAY or a
// RST_STREAM of its own).
template <typename Session>
int LibraryError(nghttp2_session*, int, const char* msg, size_t len, void* user) {
  static_cast<Session*>(user)->OnLibraryError(std::string_view(msg, len));
  return 0;
}

// SetCommonCallbacks: the four above on `cb`.
template <typename Session, nghttp2_headers_category kCategory>
void SetCommonCallbacks(nghttp2_session_callbacks* cb) {
  nghttp2_session_callbacks_set_on_begin_headers_callback(cb, BeginHeaders<Session, kCategory>);
  nghttp2_session_callbacks_set_on_header_callback(cb, Header<Session>);
  nghttp2_session_callbacks_set_on_stream_close_callback(cb, StreamClosed<Session>);
  nghttp2_session_callbacks_set_error_callback2(cb, LibraryError<Session>);
}

}  // namespace pqc::h2
