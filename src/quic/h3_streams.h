// h3_streams — one QUIC connection's streams as OpenSSL stream objects, joined to its nghttp3
// session: what arrives on a stream goes to nghttp3, what nghttp3 has to send goes onto its
// stream. Both sides of HTTP/3 use it; the client and the server differ only in the session's
// callbacks and in who opens the request stream (RFC 9114 §6).
// Everything is non-blocking: a stream whose send buffer is full is marked blocked in nghttp3
// and retried on the next Flush; nothing here waits. The connection is expected in explicit
// event handling (see ExplicitEvents): reads and writes here only move bytes between nghttp3
// and OpenSSL's buffers, and the network is touched only where the owner calls
// SSL_handle_events — so no datagram is taken off the socket behind the owner's back, to
// sit unread while it sleeps on a socket that is no longer readable.
#pragma once

#include <nghttp3/nghttp3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "tls/ossl_ptr.h"

namespace pqc::quic {

struct H3ConnDeleter {
  void operator()(nghttp3_conn* c) const { nghttp3_conn_del(c); }
};
using H3ConnPtr = std::unique_ptr<nghttp3_conn, H3ConnDeleter>;

class H3Streams {
 public:
  // `conn`: the QUIC connection (borrowed; outlives this), `h3` the session made for it.
  H3Streams(SSL* conn, H3ConnPtr h3);
  H3Streams(const H3Streams&) = delete;
  H3Streams& operator=(const H3Streams&) = delete;

  nghttp3_conn* h3() const { return h3_.get(); }

  // OpenControlStreams: this side's control stream and QPACK encoder and decoder streams
  // (RFC 9114 §6.2, RFC 9204 §4.2), bound to the session.
  Status OpenControlStreams();
  // OpenRequestStream: a new bidirectional stream for a request; its id.
  Result<int64_t> OpenRequestStream();
  // AcceptIncoming: the streams the peer opened since the last call.
  Status AcceptIncoming();
  // ReadAll: every stream's received bytes (and ends) handed to the session.
  Status ReadAll();
  // Flush: what the session has to send, written onto the streams as far as they take it.
  Status Flush();
  // Release: the session closed stream `id`; its object is freed after the current pass.
  void Release(int64_t id) { released_.push_back(id); }

  size_t open_streams() const { return streams_.size(); }
  // moved: a count that grows with every byte read or written, stream accepted or ended; a
  // pass that leaves it unchanged found nothing to do (the caller may then sleep).
  uint64_t moved() const { return moved_; }

 private:
  Status Adopt(SSL* stream);
  Status ReadStream(int64_t id, SSL* s);
  void Sweep();

  SSL* conn_;
  H3ConnPtr h3_;
  std::map<int64_t, SslPtr> streams_;
  std::set<int64_t> read_done_;  // FIN or reset received, or a stream we only write
  std::set<int64_t> blocked_;    // nghttp3_conn_block_stream'd: retried on the next Flush
  std::vector<int64_t> released_;
  std::vector<uint8_t> buffer_;
  uint64_t moved_ = 0;
};

// ExplicitEvents: `ssl` (a connection or listener) does network I/O only in SSL_handle_events.
inline bool ExplicitEvents(SSL* ssl) {
  return SSL_set_event_handling_mode(ssl, SSL_VALUE_EVENT_HANDLING_MODE_EXPLICIT) == 1;
}

// StreamId: the QUIC stream id of an OpenSSL stream object.
inline int64_t StreamId(SSL* s) {
  return static_cast<int64_t>(SSL_get_stream_id(s));
}

// HeaderField: a header for nghttp3's submit calls, which copy it. (nghttp3 before 1.0 takes
// the bytes as non-const pointers, yet never writes through them.)
inline nghttp3_nv HeaderField(std::string_view name, std::string_view value) {
  return nghttp3_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(),
                    value.size(), NGHTTP3_NV_FLAG_NONE};
}

// H3Error: an nghttp3 error code as an Error ("nghttp3 <what>: <its message>").
Error H3Error(const char* what, long code);

}  // namespace pqc::quic
