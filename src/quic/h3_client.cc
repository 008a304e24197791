#include "quic/h3_client.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <poll.h>

#include <algorithm>
#include <cstring>

#include "net/socket.h"
#include "tls/ssl_error.h"

namespace pqc::quic {
namespace {

H3Client& Client(void* user) {
  return *static_cast<H3Client*>(user);
}

int OnResponseHeader(nghttp3_conn*, int64_t stream_id, int32_t token, nghttp3_rcbuf* /*name*/,
                     nghttp3_rcbuf* value, uint8_t /*flags*/, void* user, void* /*stream*/) {
  if (token == NGHTTP3_QPACK_TOKEN__STATUS) {
    const nghttp3_vec v = nghttp3_rcbuf_get_buf(value);
    uint32_t status = 0;
    for (size_t i = 0; i < v.len && i < 3; ++i) {
      if (v.base[i] < '0' || v.base[i] > '9') return NGHTTP3_ERR_CALLBACK_FAILURE;
      status = status * 10 + (v.base[i] - '0');
    }
    Client(user).OnStatus(stream_id, status);
  }
  return 0;
}

int OnRecvData(nghttp3_conn*, int64_t stream_id, const uint8_t* /*data*/, size_t len, void* user,
               void* /*stream*/) {
  Client(user).OnBody(stream_id, len);
  return 0;
}

int OnResponseEnd(nghttp3_conn*, int64_t stream_id, void* user, void* /*stream*/) {
  Client(user).OnEnd(stream_id);
  return 0;
}

int OnClientStreamClose(nghttp3_conn*, int64_t stream_id, uint64_t /*app_error*/, void* user,
                        void* /*stream*/) {
  Client(user).OnClose(stream_id);
  return 0;
}

Result<BIO_ADDR*> PeerAddress(const SocketAddress& a) {
  BIO_ADDR* addr = BIO_ADDR_new();
  if (addr == nullptr) return SslError("allocating a peer address");
  int ok = 0;
  if (a.family() == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(a.sa());
    ok = BIO_ADDR_rawmake(addr, AF_INET, &in->sin_addr, sizeof in->sin_addr, in->sin_port);
  } else if (a.family() == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a.sa());
    ok = BIO_ADDR_rawmake(addr, AF_INET6, &in6->sin6_addr, sizeof in6->sin6_addr, in6->sin6_port);
  }
  if (ok != 1) {
    BIO_ADDR_free(addr);
    return MakeError(ErrorKind::kUsage, fmt::format("{}: not an IP address", a.ToString()));
  }
  return addr;
}

}  // namespace

Result<std::unique_ptr<H3Client>> H3Client::Open(SSL_CTX* ctx, const H3Target& target,
                                                 SSL_SESSION* session) {
  std::unique_ptr<H3Client> c(new H3Client());
  c->target_ = target;
  auto fd = ConnectUdp(target.server);
  if (!fd) return fd.error();
  c->fd_ = std::move(*fd);
  c->ssl_.reset(SSL_new(ctx));
  SSL* s = c->ssl_.get();
  if (s == nullptr) return SslError("creating a QUIC connection");
  Watch(s, c->watch_.get());
  auto peer = PeerAddress(target.server);
  if (!peer) return peer.error();
  const int peer_set = SSL_set1_initial_peer_addr(s, *peer);
  BIO_ADDR_free(*peer);
  // The socket stays ours (BIO_NOCLOSE through SSL_set_fd's datagram BIO is not offered, so
  // the BIO is made here): fd_ outlives ssl_.
  BIO* bio = BIO_new_dgram(c->fd_.get(), BIO_NOCLOSE);
  if (bio == nullptr) return SslError("creating the datagram BIO");
  SSL_set_bio(s, bio, bio);
  if (peer_set != 1 || SSL_set_blocking_mode(s, 0) != 1 || !ExplicitEvents(s) ||
      SSL_set_default_stream_mode(s, SSL_DEFAULT_STREAM_MODE_NONE) != 1 ||
      SSL_set_incoming_stream_policy(s, SSL_INCOMING_STREAM_POLICY_ACCEPT, 0) != 1 ||
      SSL_set_tlsext_host_name(s, target.server_name.c_str()) != 1) {
    return SslError("configuring the QUIC connection");
  }
  if (session != nullptr && SSL_set_session(s, session) != 1) {
    return SslError("offering the saved session");
  }
  c->started_ = MonotonicNow();
  c->Advance();
  return c;
}

H3Client::~H3Client() = default;

H3Client::State H3Client::Fail(H3Failure kind, std::string why) {
  ERR_clear_error();
  failure_ = kind;
  error_ = std::move(why);
  state_ = State::kFailed;
  return state_;
}

void H3Client::OnStatus(int64_t stream, uint32_t status) {
  if (stream == request_stream_ && !responses_.empty()) responses_.back().status = status;
}

void H3Client::OnBody(int64_t stream, size_t bytes) {
  if (stream != request_stream_ || responses_.empty()) return;
  H3Response& r = responses_.back();
  if (r.first_byte == 0) r.first_byte = MonotonicNow();
  r.body_bytes += bytes;
}

void H3Client::OnEnd(int64_t stream) {
  if (stream != request_stream_ || responses_.empty()) return;
  H3Response& r = responses_.back();
  r.last_byte = MonotonicNow();
  if (r.first_byte == 0) r.first_byte = r.last_byte;
}

void H3Client::OnClose(int64_t stream) {
  if (streams_) streams_->Release(stream);
}

Status H3Client::SendRequest() {
  auto id = streams_->OpenRequestStream();
  if (!id) return id.error();
  request_stream_ = *id;
  const nghttp3_nv head[] = {HeaderField(":method", "GET"), HeaderField(":scheme", "https"),
                             HeaderField(":authority", target_.server_name),
                             HeaderField(":path", target_.path),
                             HeaderField("user-agent", "pqc-bench")};
  if (int rv =
          nghttp3_conn_submit_request(streams_->h3(), *id, head, std::size(head), nullptr, nullptr);
      rv != 0) {
    return H3Error("submitting a request", rv);
  }
  responses_.push_back(H3Response{});
  if (Status st = streams_->Flush(); !st) return st;
  responses_.back().sent = MonotonicNow();
  return {};
}

Status H3Client::Pump() {
  if (Status st = streams_->AcceptIncoming(); !st) return st;
  if (Status st = streams_->ReadAll(); !st) return st;
  return streams_->Flush();
}

H3Client::State H3Client::Advance() {
  SSL* s = ssl_.get();
  // Each pass first lets OpenSSL send what the last one queued and take in what arrived, then
  // moves it through nghttp3. A pass that moves nothing ends the loop: whatever the network
  // had is then handled, and the caller may sleep on the socket. Bounded for fairness.
  for (int pass = 0; pass < 16; ++pass) {
    if (state_ == State::kDone || state_ == State::kFailed) return state_;
    (void)SSL_handle_events(s);
    SSL_CONN_CLOSE_INFO info{};
    if (SSL_get_conn_close_info(s, &info, sizeof info) == 1) {
      // A transport error code 0x100–0x1ff is a TLS alert carried by QUIC (RFC 9001 §4.8).
      const bool alert = (info.flags & SSL_CONN_CLOSE_FLAG_TRANSPORT) != 0 &&
                         info.error_code >= 0x100 && info.error_code <= 0x1ff;
      // Closed here with nothing ever received: the network said no (a closed port's ICMP
      // answer fails the connected socket), as a refused TCP connect.
      const bool refused =
          (info.flags & SSL_CONN_CLOSE_FLAG_LOCAL) != 0 && watch_->wire.datagrams_received == 0;
      return Fail(
          alert     ? H3Failure::kPeerTls
          : refused ? H3Failure::kRefused
                    : H3Failure::kClosed,
          fmt::format(
              "the connection closed ({} error {:#x}{}{})",
              (info.flags & SSL_CONN_CLOSE_FLAG_TRANSPORT) != 0 ? "transport" : "application",
              info.error_code, info.reason_len > 0 ? ": " : "",
              std::string_view(info.reason != nullptr ? info.reason : "", info.reason_len)));
    }
    bool moved = false;
    if (state_ == State::kHandshaking) {
      const int rv = SSL_do_handshake(s);
      if (rv != 1) {
        const int err = SSL_get_error(s, rv);
        if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
          ERR_clear_error();
          return state_;
        }
        return Fail(H3Failure::kTls, SslError("QUIC handshake").message);
      }
      handshake_done_ = MonotonicNow();
      handshake_wire_ = watch_->wire;
      if (Status st = StartSession(); !st) return Fail(H3Failure::kHttp, st.error().message);
      moved = true;
    }
    const uint64_t before = streams_->moved();
    // Bounded: each completed response either starts the next request or ends the loop.
    for (uint32_t guard = 0; guard <= target_.requests; ++guard) {
      if (Status st = Pump(); !st) return Fail(H3Failure::kHttp, st.error().message);
      if (responses_.empty() || responses_.back().last_byte == 0) break;
      if (responses_.size() >= target_.requests) {
        state_ = State::kDone;
        break;
      }
      if (Status st = SendRequest(); !st) return Fail(H3Failure::kHttp, st.error().message);
    }
    ERR_clear_error();
    if (!moved && streams_->moved() == before) break;
  }
  return state_;
}

Status H3Client::StartSession() {
  nghttp3_callbacks cb{};
  cb.recv_header = OnResponseHeader;
  cb.recv_data = OnRecvData;
  cb.end_stream = OnResponseEnd;
  cb.stream_close = OnClientStreamClose;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  nghttp3_conn* h3 = nullptr;
  if (int rv = nghttp3_conn_client_new(&h3, &cb, &settings, nghttp3_mem_default(), this); rv != 0) {
    return H3Error("creating a client session", rv);
  }
  streams_ = std::make_unique<H3Streams>(ssl_.get(), H3ConnPtr(h3));
  if (Status st = streams_->OpenControlStreams(); !st) return st;
  if (Status st = SendRequest(); !st) return st;
  state_ = State::kRequesting;
  return {};
}

Nanos H3Client::Deadline() const {
  timeval tv{};
  int infinite = 0;
  if (SSL_get_event_timeout(ssl_.get(), &tv, &infinite) != 1 || infinite != 0) return 0;
  return MonotonicNow() + static_cast<Nanos>(tv.tv_sec) * 1'000'000'000 +
         static_cast<Nanos>(tv.tv_usec) * 1000;
}

bool H3Client::WantsWrite() const {
  return SSL_net_write_desired(ssl_.get()) == 1;
}

void H3Client::Close() {
  SSL_SHUTDOWN_EX_ARGS args{};
  args.quic_error_code = NGHTTP3_H3_NO_ERROR;
  (void)SSL_shutdown_ex(ssl_.get(), SSL_SHUTDOWN_FLAG_NO_BLOCK | SSL_SHUTDOWN_FLAG_RAPID, &args,
                        sizeof args);
  (void)SSL_handle_events(ssl_.get());  // explicit event handling: send the close now
  ERR_clear_error();
}

Result<std::unique_ptr<H3Client>> Fetch(SSL_CTX* ctx, const H3Target& target, Nanos timeout,
                                        SSL_SESSION* session) {
  auto c = H3Client::Open(ctx, target, session);
  if (!c) return c.error();
  H3Client& client = **c;
  const Nanos give_up = MonotonicNow() + timeout;
  while (client.state() != H3Client::State::kDone && client.state() != H3Client::State::kFailed) {
    const Nanos now = MonotonicNow();
    if (now >= give_up) {
      return MakeError(ErrorKind::kIo, fmt::format("no HTTP/3 response from {} within {} ms",
                                                   target.server.ToString(), timeout / 1'000'000));
    }
    Nanos wake = give_up;
    if (const Nanos d = client.Deadline(); d != 0) wake = std::min(wake, d);
    pollfd p{client.fd(), POLLIN, 0};
    if (client.WantsWrite()) p.events |= POLLOUT;
    const Nanos wait = std::max<Nanos>(wake - now, 0);
    (void)poll(&p, 1, static_cast<int>((wait + 999'999) / 1'000'000));
    client.Advance();
  }
  client.Close();
  return c;
}

}  // namespace pqc::quic
