#include "quic/h3_streams.h"

#include <fmt/format.h>
#include <openssl/err.h>

#include "tls/ssl_error.h"

namespace pqc::quic {
namespace {

constexpr size_t kReadChunk = size_t{16} * 1024;
// Bounds on one pass, so that a peer streaming without pause cannot hold the event loop:
// the rest is read or written on the next pass.
constexpr int kReadsPerStream = 64;
constexpr int kWritesPerFlush = 1024;
constexpr size_t kVecs = 16;

}  // namespace

Error H3Error(const char* what, long code) {
  return MakeError(ErrorKind::kTls,
                   fmt::format("nghttp3 {}: {}", what, nghttp3_strerror(static_cast<int>(code))));
}

H3Streams::H3Streams(SSL* conn, H3ConnPtr h3)
    : conn_(conn), h3_(std::move(h3)), buffer_(kReadChunk) {}

Status H3Streams::Adopt(SSL* stream) {
  // Partial writes: a full send buffer then takes what fits instead of refusing the whole
  // write, so nghttp3 learns exactly how far each stream got.
  SSL_set_mode(stream, SSL_MODE_ENABLE_PARTIAL_WRITE);
  const int64_t id = StreamId(stream);
  // A stream this side opened one-way is never read.
  if (SSL_get_stream_read_state(stream) == SSL_STREAM_STATE_WRONG_DIR) read_done_.insert(id);
  streams_.emplace(id, SslPtr(stream));
  return {};
}

Status H3Streams::OpenControlStreams() {
  int64_t ids[3];
  for (int64_t& id : ids) {
    SSL* s = SSL_new_stream(conn_, SSL_STREAM_FLAG_UNI | SSL_STREAM_FLAG_NO_BLOCK);
    if (s == nullptr) return SslError("opening an HTTP/3 control stream");
    id = StreamId(s);
    if (Status st = Adopt(s); !st) return st;
  }
  if (int rv = nghttp3_conn_bind_control_stream(h3(), ids[0]); rv != 0) {
    return H3Error("binding the control stream", rv);
  }
  if (int rv = nghttp3_conn_bind_qpack_streams(h3(), ids[1], ids[2]); rv != 0) {
    return H3Error("binding the QPACK streams", rv);
  }
  return {};
}

Result<int64_t> H3Streams::OpenRequestStream() {
  SSL* s = SSL_new_stream(conn_, SSL_STREAM_FLAG_NO_BLOCK);
  if (s == nullptr) return SslError("opening a request stream");
  const int64_t id = StreamId(s);
  if (Status st = Adopt(s); !st) return st.error();
  return id;
}

Status H3Streams::AcceptIncoming() {
  // Bounded: the peer's stream limit (our transport parameters) caps what can be queued.
  for (int i = 0; i < 256; ++i) {
    SSL* s = SSL_accept_stream(conn_, SSL_ACCEPT_STREAM_NO_BLOCK);
    if (s == nullptr) break;
    if (Status st = Adopt(s); !st) return st;
    ++moved_;
  }
  ERR_clear_error();
  return {};
}

Status H3Streams::ReadStream(int64_t id, SSL* s) {
  for (int i = 0; i < kReadsPerStream; ++i) {
    size_t n = 0;
    if (SSL_read_ex(s, buffer_.data(), buffer_.size(), &n) == 1) {
      const nghttp3_ssize used = nghttp3_conn_read_stream(h3(), id, buffer_.data(), n, 0);
      if (used < 0) return H3Error("reading a stream", used);
      moved_ += n;
      continue;
    }
    switch (SSL_get_error(s, 0)) {
      case SSL_ERROR_WANT_READ:
        return {};
      case SSL_ERROR_ZERO_RETURN: {  // the peer's FIN
        read_done_.insert(id);
        ++moved_;
        const nghttp3_ssize used = nghttp3_conn_read_stream(h3(), id, nullptr, 0, 1);
        if (used < 0) return H3Error("ending a stream", used);
        return {};
      }
      default:
        break;
    }
    ERR_clear_error();
    read_done_.insert(id);
    ++moved_;
    if (SSL_get_stream_read_state(s) == SSL_STREAM_STATE_RESET_REMOTE) {
      uint64_t code = 0;
      (void)SSL_get_stream_read_error_code(s, &code);
      const int rv = nghttp3_conn_close_stream(h3(), id, code);
      if (rv != 0 && rv != NGHTTP3_ERR_STREAM_NOT_FOUND)
        return H3Error("closing a reset stream", rv);
      return {};
    }
    return MakeError(ErrorKind::kTls,
                     fmt::format("reading QUIC stream {}: the connection closed", id));
  }
  return {};
}

Status H3Streams::ReadAll() {
  for (auto& [id, s] : streams_) {
    if (read_done_.count(id) != 0) continue;
    if (Status st = ReadStream(id, s.get()); !st) return st;
  }
  Sweep();
  return {};
}

Status H3Streams::Flush() {
  for (int64_t id : blocked_) (void)nghttp3_conn_unblock_stream(h3(), id);
  blocked_.clear();
  for (int pass = 0; pass < kWritesPerFlush; ++pass) {
    int64_t id = -1;
    int fin = 0;
    nghttp3_vec vec[kVecs];
    const nghttp3_ssize n = nghttp3_conn_writev_stream(h3(), &id, &fin, vec, kVecs);
    if (n < 0) return H3Error("writing", n);
    if (id < 0) break;  // nothing more to send
    auto it = streams_.find(id);
    if (it == streams_.end()) {
      return MakeError(ErrorKind::kTls, fmt::format("nghttp3 wrote to unknown stream {}", id));
    }
    SSL* s = it->second.get();
    size_t total = 0;
    bool blocked = false;
    for (nghttp3_ssize i = 0; i < n && !blocked; ++i) {
      if (vec[i].len == 0) continue;
      size_t written = 0;
      if (SSL_write_ex(s, vec[i].base, vec[i].len, &written) != 1) {
        if (SSL_get_error(s, 0) != SSL_ERROR_WANT_WRITE) {
          return SslError(fmt::format("writing QUIC stream {}", id));
        }
        ERR_clear_error();
        blocked = true;
        break;
      }
      total += written;
      blocked = written < vec[i].len;
    }
    if (fin != 0 && !blocked && SSL_stream_conclude(s, 0) != 1) {
      return SslError(fmt::format("ending QUIC stream {}", id));
    }
    moved_ += total + (fin != 0 ? 1 : 0);
    if (int rv = nghttp3_conn_add_write_offset(h3(), id, total); rv != 0) {
      return H3Error("advancing a stream", rv);
    }
    // OpenSSL keeps what it accepted until the peer acknowledges it, so nghttp3 may let go
    // at once (it would otherwise keep every response body until a QUIC ACK it never sees).
    if (int rv = nghttp3_conn_add_ack_offset(h3(), id, total); rv != 0) {
      return H3Error("acknowledging a stream", rv);
    }
    if (blocked) {
      (void)nghttp3_conn_block_stream(h3(), id);
      blocked_.insert(id);
    }
  }
  Sweep();
  return {};
}

void H3Streams::Sweep() {
  for (int64_t id : released_) {
    streams_.erase(id);
    read_done_.erase(id);
    blocked_.erase(id);
  }
  released_.clear();
}

}  // namespace pqc::quic
