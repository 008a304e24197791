#include "quic/h3_server.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <list>
#include <map>
#include <string>

#include "core/fd.h"
#include "http/payload.h"
#include "http/routes.h"
#include "net/socket.h"
#include "quic/h3_streams.h"
#include "tls/ssl_error.h"

namespace pqc::quic {
namespace {

// kMaxClientBidiStreams: request streams a client may open over a connection's life, as
// nghttp3 counts them (2^60: any stream ID QUIC can carry).
constexpr uint64_t kMaxClientBidiStreams = uint64_t{1} << 60;

// kMaxFieldSection: a request's header section, counted as RFC 9114 §4.2.2 does (each field's
// name and value plus 32), at most — as over TCP (http/request_parser.h: 16 KiB of head).
// nghttp3 advertises the setting but leaves enforcing it to the application; a request over it
// is answered 431 and nothing of it beyond the limit is kept.
constexpr uint64_t kMaxFieldSection = 16 * 1024;

}  // namespace

// ServerRequest: one request stream's path, route and body progress. Outside the anonymous
// namespace: ServerConn, which holds them, is declared in the header's namespace.
struct ServerRequest {
  std::string path;
  uint64_t field_bytes = 0;  // of the header section so far (RFC 9114 §4.2.2)
  bool too_large = false;    // over kMaxFieldSection: answered 431, its path not kept
  Route route;
  uint64_t sent = 0;  // body bytes handed to nghttp3
};

struct ServerConn;

struct H3Server::Worker {
  ScopedFd fd;
  SslPtr listener;
  std::span<const char> payload;
  uint32_t max_connections = 0;
  std::list<std::unique_ptr<ServerConn>> conns;
  std::atomic<size_t> open{0};  // conns.size(), for other threads (H3Server::OpenConnections)
  H3ServerStats stats;

  // Loop: until `stop` is set; `stop_wake` (an eventfd) becomes readable when it is.
  void Loop(const std::atomic<bool>& stop, int stop_wake);
  // AcceptAll: the connections the last tick queued; how many.
  int AcceptAll();
  // Service: one connection's progress, `moved` set if it did anything; false once it is over
  // (to be freed).
  bool Service(ServerConn& c, bool* moved);
};

struct ServerConn {
  H3Server::Worker* worker = nullptr;
  SslPtr ssl;
  std::unique_ptr<H3Streams> streams;  // once the handshake is complete
  std::map<int64_t, ServerRequest> requests;
};

namespace {

ServerConn& Conn(void* user) {
  return *static_cast<ServerConn*>(user);
}

int OnRecvHeader(nghttp3_conn*, int64_t stream_id, int32_t token, nghttp3_rcbuf* name,
                 nghttp3_rcbuf* value, uint8_t /*flags*/, void* conn_user, void* /*stream*/) {
  ServerRequest& r = Conn(conn_user).requests[stream_id];
  const nghttp3_vec v = nghttp3_rcbuf_get_buf(value);
  r.field_bytes += nghttp3_rcbuf_get_buf(name).len + v.len + 32;
  if (r.field_bytes > kMaxFieldSection) {
    r.too_large = true;
    r.path.clear();
    return 0;
  }
  if (token == NGHTTP3_QPACK_TOKEN__PATH) {
    r.path.assign(reinterpret_cast<const char*>(v.base), v.len);
  }
  return 0;
}

nghttp3_ssize ReadBody(nghttp3_conn*, int64_t stream_id, nghttp3_vec* vec, size_t veccnt,
                       uint32_t* pflags, void* conn_user, void* /*stream*/) {
  ServerConn& c = Conn(conn_user);
  auto it = c.requests.find(stream_id);
  if (it == c.requests.end() || veccnt == 0) {
    *pflags |= NGHTTP3_DATA_FLAG_EOF;
    return 0;
  }
  ServerRequest& r = it->second;
  const uint64_t left = r.route.body_size - r.sent;
  std::span<const char> chunk;
  if (r.route.is_payload) {
    chunk = PayloadChunk(c.worker->payload, r.sent, left);
  } else {
    chunk = std::span<const char>(r.route.text.data(), r.route.text.size())
                .subspan(static_cast<size_t>(r.sent));
  }
  // The bytes live as long as the server (the payload buffer, or static text).
  vec[0].base = reinterpret_cast<uint8_t*>(const_cast<char*>(chunk.data()));
  vec[0].len = chunk.size();
  r.sent += chunk.size();
  if (r.sent >= r.route.body_size) *pflags |= NGHTTP3_DATA_FLAG_EOF;
  return 1;
}

int OnEndStream(nghttp3_conn* h3, int64_t stream_id, void* conn_user, void* /*stream*/) {
  ServerConn& c = Conn(conn_user);
  ServerRequest& r = c.requests[stream_id];
  r.route = r.too_large ? ErrorRoute(431) : r.path.empty() ? ErrorRoute(400) : ResolveRoute(r.path);
  const std::string status = std::to_string(r.route.status);
  const std::string length = std::to_string(r.route.body_size);
  const char* type = r.route.is_payload ? "application/octet-stream" : "text/plain";
  const nghttp3_nv head[] = {HeaderField(":status", status), HeaderField("content-length", length),
                             HeaderField("content-type", type)};
  static const nghttp3_data_reader kBody = {ReadBody};
  const int rv = nghttp3_conn_submit_response(h3, stream_id, head, std::size(head),
                                              r.route.body_size > 0 ? &kBody : nullptr);
  if (rv == 0) ++c.worker->stats.requests;
  return rv == 0 ? 0 : NGHTTP3_ERR_CALLBACK_FAILURE;
}

int OnStreamClose(nghttp3_conn*, int64_t stream_id, uint64_t /*app_error*/, void* conn_user,
                  void* /*stream*/) {
  ServerConn& c = Conn(conn_user);
  c.requests.erase(stream_id);
  c.streams->Release(stream_id);
  return 0;
}

Result<H3ConnPtr> NewServerSession(ServerConn* c) {
  nghttp3_callbacks cb{};
  cb.recv_header = OnRecvHeader;
  cb.end_stream = OnEndStream;
  cb.stream_close = OnStreamClose;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  settings.max_field_section_size = kMaxFieldSection;  // advertised; enforced in OnRecvHeader
  nghttp3_conn* h3 = nullptr;
  if (int rv = nghttp3_conn_server_new(&h3, &cb, &settings, nghttp3_mem_default(), c); rv != 0) {
    return H3Error("creating a server session", rv);
  }
  // nghttp3 checks the request stream IDs a client names (in PRIORITY_UPDATE, which Chromium
  // sends on its control stream before the request stream it prioritises arrives) against this
  // limit, 0 unless set: every such frame would be an H3_ID_ERROR. OpenSSL enforces the real
  // stream limit (it raises it as streams close), so nghttp3's is only the ceiling of an ID.
  nghttp3_conn_set_max_client_streams_bidi(h3, kMaxClientBidiStreams);
  return H3ConnPtr(h3);
}

bool ConnectionClosed(SSL* ssl) {
  SSL_CONN_CLOSE_INFO info;
  return SSL_get_conn_close_info(ssl, &info, sizeof info) == 1;
}

}  // namespace

int H3Server::Worker::AcceptAll() {
  // Bounded by what one tick queued; the rest waits for the next pass.
  int i = 0;
  for (; i < 1024; ++i) {
    SSL* s = SSL_accept_connection(listener.get(), SSL_ACCEPT_CONNECTION_NO_BLOCK);
    if (s == nullptr) break;
    SslPtr ssl(s);
    if (conns.size() >= max_connections) {
      // Dropped: freeing the object closes the connection with an error.
      continue;
    }
    ++stats.connections;
    // Every stream is an object of its own (no default stream), and the peer's streams wait
    // in the accept queue for H3Streams.
    if (SSL_set_blocking_mode(s, 0) != 1 || !ExplicitEvents(s) ||
        SSL_set_default_stream_mode(s, SSL_DEFAULT_STREAM_MODE_NONE) != 1 ||
        SSL_set_incoming_stream_policy(s, SSL_INCOMING_STREAM_POLICY_ACCEPT, 0) != 1) {
      ERR_clear_error();
      ++stats.handshakes_failed;
      continue;
    }
    auto c = std::make_unique<ServerConn>();
    c->worker = this;
    c->ssl = std::move(ssl);
    conns.push_back(std::move(c));
  }
  ERR_clear_error();
  return i;
}

bool H3Server::Worker::Service(ServerConn& c, bool* moved) {
  SSL* s = c.ssl.get();
  const uint64_t before = c.streams ? c.streams->moved() : 0;
  if (ConnectionClosed(s)) {
    if (!c.streams) ++stats.handshakes_failed;
    return false;
  }
  if (!c.streams) {
    const int rv = SSL_do_handshake(s);
    if (rv != 1) {
      const int err = SSL_get_error(s, rv);
      ERR_clear_error();
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return true;
      ++stats.handshakes_failed;
      return false;
    }
    ++(SSL_session_reused(s) == 1 ? stats.handshakes_resumed : stats.handshakes_full);
    auto session = NewServerSession(&c);
    if (!session) {
      ++stats.h3_errors;
      return false;
    }
    c.streams = std::make_unique<H3Streams>(s, std::move(*session));
    *moved = true;
    if (Status st = c.streams->OpenControlStreams(); !st) {
      ++stats.h3_errors;
      return false;
    }
  }
  Status st = c.streams->AcceptIncoming();
  if (st) st = c.streams->ReadAll();
  if (st) st = c.streams->Flush();
  if (!st) {
    ERR_clear_error();
    ++stats.h3_errors;
    SSL_SHUTDOWN_EX_ARGS args{};
    args.quic_error_code = NGHTTP3_H3_INTERNAL_ERROR;
    (void)SSL_shutdown_ex(s, SSL_SHUTDOWN_FLAG_NO_BLOCK | SSL_SHUTDOWN_FLAG_RAPID, &args,
                          sizeof args);
    return false;
  }
  if (c.streams->moved() != before) *moved = true;
  return true;
}

void H3Server::Worker::Loop(const std::atomic<bool>& stop, int stop_wake) {
  bool busy = false;  // the last round of passes ended still moving: look again at once
  while (!stop.load(std::memory_order_acquire)) {
    // Sleep until a datagram arrives, the socket can take what is queued, a QUIC timer of
    // the listener or one of its connections is due, or Stop: never on a clock of our own.
    int wait_ms = -1;
    timeval tv{};
    int infinite = 0;
    if (SSL_get_event_timeout(listener.get(), &tv, &infinite) == 1 && infinite == 0) {
      const long ms = tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000;
      wait_ms = static_cast<int>(std::clamp<long>(ms, 0, 60'000));
    }
    if (busy) wait_ms = 0;
    pollfd p[2] = {{fd.get(), POLLIN, 0}, {stop_wake, POLLIN, 0}};
    if (SSL_net_write_desired(listener.get()) == 1) p[0].events |= POLLOUT;
    (void)poll(p, 2, wait_ms);
    if (p[1].revents != 0) break;
    // Each pass: one tick of the listener's engine (it drives every connection of this socket:
    // what the last pass queued goes out, what arrived comes in), then every connection's
    // streams. The connections handle events explicitly, so only the tick (and the accept
    // call just after it, which a listener cannot be told not to tick in) touches the network:
    // a pass that moves nothing leaves nothing unhandled before the next poll.
    busy = true;
    for (int pass = 0; pass < 16 && busy; ++pass) {
      (void)SSL_handle_events(listener.get());
      bool moved = AcceptAll() > 0;
      for (auto it = conns.begin(); it != conns.end();) {
        bool one = false;
        const bool alive = Service(**it, &one);
        moved = moved || one || !alive;
        it = alive ? std::next(it) : conns.erase(it);
      }
      open.store(conns.size(), std::memory_order_release);
      ERR_clear_error();
      busy = moved;
    }
  }
  conns.clear();
}

Result<std::unique_ptr<H3Server>> H3Server::Start(const H3ServerConfig& cfg) {
  if (cfg.ctx == nullptr) return MakeError(ErrorKind::kUsage, "QUIC server without a TLS context");
  std::unique_ptr<H3Server> server(new H3Server());
  server->payload_ = MakePayloadBuffer();
  SocketAddress where = cfg.listen;
  const unsigned threads = std::max(cfg.threads, 1u);
  for (unsigned i = 0; i < threads; ++i) {
    auto fd = BindUdp(where, threads > 1);
    if (!fd) return fd.error();
    if (i == 0) {
      auto local = LocalAddress(fd->get());
      if (!local) return local.error();
      server->port_ = local->port();
      where = where.WithPort(server->port_);
    }
    auto w = std::make_unique<Worker>();
    w->fd = std::move(*fd);
    w->payload = server->payload_;
    w->max_connections = cfg.max_connections;
    w->listener.reset(
        SSL_new_listener(cfg.ctx, cfg.validate_address ? 0 : SSL_LISTENER_FLAG_NO_VALIDATE));
    if (!w->listener) return SslError("creating the QUIC listener");
    if (SSL_set_fd(w->listener.get(), w->fd.get()) != 1 ||
        SSL_set_blocking_mode(w->listener.get(), 0) != 1 || SSL_listen(w->listener.get()) != 1) {
      return SslError(fmt::format("listening for QUIC on UDP {}", where.ToString()));
    }
    server->workers_.push_back(std::move(w));
  }
  server->stop_wake_.reset(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!server->stop_wake_.valid()) {
    return MakeError(ErrorKind::kSystem,
                     fmt::format("QUIC server: eventfd: {}", std::strerror(errno)));
  }
  for (auto& w : server->workers_) {
    server->threads_.emplace_back(
        [w = w.get(), stop = &server->stop_, wake = server->stop_wake_.get()] {
          // (named for top, perf and the tests that watch it sleep: at most 15 characters)
          (void)pthread_setname_np(pthread_self(), "pqc-h3-server");
          w->Loop(*stop, wake);
        });
  }
  return server;
}

void H3Server::Stop() {
  stop_.store(true, std::memory_order_release);
  // (never read back: it stays readable, so every worker wakes, whenever it next polls)
  if (stop_wake_.valid()) {
    const uint64_t one = 1;
    (void)!write(stop_wake_.get(), &one, sizeof one);
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

H3Server::~H3Server() {
  Stop();
}

size_t H3Server::OpenConnections() const {
  size_t n = 0;
  for (const auto& w : workers_) n += w->open.load(std::memory_order_acquire);
  return n;
}

H3ServerStats H3Server::stats() const {
  H3ServerStats sum;
  for (const auto& w : workers_) {
    sum.connections += w->stats.connections;
    sum.handshakes_failed += w->stats.handshakes_failed;
    sum.handshakes_full += w->stats.handshakes_full;
    sum.handshakes_resumed += w->stats.handshakes_resumed;
    sum.requests += w->stats.requests;
    sum.h3_errors += w->stats.h3_errors;
  }
  return sum;
}

}  // namespace pqc::quic
