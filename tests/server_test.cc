// Tests of the embedded target (src/server) and `pqc-bench serve`: real sockets on 127.0.0.1,
// real OpenSSL handshakes, a small blocking client that checks every byte it gets back.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/fd.h"
#include "embedded_fixture.h"
#include "gtest/gtest.h"
#include "http/payload.h"
#include "http/request_writer.h"
#include "net/address.h"
#include "server/embedded_server.h"
#include "server/server_groups.h"
#include "tls/cert_chain.h"
#include "tls/context.h"
#include "test_paths.h"

extern char** environ;

namespace pqc {
namespace {

constexpr Nanos kMs = 1'000'000;

// WaitForEof: reads a raw socket until the peer closes (true) or the 5 s timeout (false).
bool WaitForEof(int fd) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

std::string Get(std::string_view path, bool keep_alive = true) {
  auto req = BuildGetRequest("localhost", path, keep_alive);
  EXPECT_TRUE(req.ok());
  return req.ok() ? *req : std::string();
}

struct Response {
  int status = 0;
  std::string head;
  std::string body;
  uint64_t content_length = 0;
  bool keep_alive = false;
};

// Client: blocking TLS 1.3 client; responses are parsed just enough to check them exactly.
class Client {
 public:
  static std::unique_ptr<Client> Connect(const SocketAddress& addr, SSL_CTX* ctx,
                                         SSL_SESSION* resume = nullptr) {
    auto c = std::unique_ptr<Client>(new Client());
    c->fd_ = test::BlockingConnect(addr);
    if (!c->fd_.valid()) return nullptr;
    c->ssl_.reset(SSL_new(ctx));
    SSL_set_fd(c->ssl_.get(), c->fd_.get());
    SSL_set_tlsext_host_name(c->ssl_.get(), "localhost");
    if (resume != nullptr) SSL_set_session(c->ssl_.get(), resume);
    if (SSL_connect(c->ssl_.get()) != 1) return nullptr;
    return c;
  }

  // ~Client: close_notify first; OpenSSL marks the session of a connection freed without it
  // as not resumable.
  ~Client() {
    if (ssl_ && SSL_is_init_finished(ssl_.get())) SSL_shutdown(ssl_.get());
  }

  SSL* ssl() { return ssl_.get(); }

  bool Send(std::string_view data) {
    size_t n = 0;
    return SSL_write_ex(ssl_.get(), data.data(), data.size(), &n) == 1 && n == data.size();
  }

  std::optional<Response> Read(bool head_request = false) {
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return std::nullopt;
    }
    Response r;
    r.head = buf_.substr(0, end + 4);
    buf_.erase(0, end + 4);
    r.status = std::stoi(r.head.substr(9, 3));
    size_t cl = r.head.find("Content-Length: ");
    if (cl == std::string::npos) return std::nullopt;
    r.content_length = std::stoull(r.head.substr(cl + 16));
    r.keep_alive = r.head.find("Connection: keep-alive\r\n") != std::string::npos;
    if (!head_request) {
      while (buf_.size() < r.content_length) {
        if (!Fill()) return std::nullopt;
      }
      r.body = buf_.substr(0, r.content_length);
      buf_.erase(0, r.content_length);
    }
    return r;
  }

  // ClosedByServer: nothing more arrives; the server closed (close_notify or end of stream).
  bool ClosedByServer() { return buf_.empty() && !Fill(); }

  // Session: after a response, so that the server's session tickets have been read.
  SslSessionPtr Session() { return SslSessionPtr(SSL_get1_session(ssl_.get())); }

 private:
  Client() = default;
  bool Fill() {
    char tmp[16384];
    size_t n = 0;
    if (SSL_read_ex(ssl_.get(), tmp, sizeof tmp, &n) != 1) return false;
    buf_.append(tmp, n);
    return true;
  }

  ScopedFd fd_;
  SslPtr ssl_;
  std::string buf_;
};

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::signal(SIGPIPE, SIG_IGN);  // the client writes to sockets the server may close
    auto spec = ParseChainSpec("ecdsa-p256/ecdsa-p384");
    ASSERT_TRUE(spec.ok());
    auto chain = MakeChain(*spec);
    ASSERT_TRUE(chain.ok()) << chain.error().message;
    chain_ = std::make_unique<CertChain>(std::move(*chain));
  }
  static void TearDownTestSuite() { chain_.reset(); }

  static ServerOptions Options() {
    ServerOptions o;
    o.listen = *ParseAddress("127.0.0.1:0");
    o.chains = {chain_.get()};
    return o;
  }

  static std::unique_ptr<EmbeddedServer> Start(const ServerOptions& o) {
    auto server = EmbeddedServer::Start(o);
    EXPECT_TRUE(server.ok()) << server.error().message;
    return server.ok() ? std::move(*server) : nullptr;
  }

  // ClientContext: verifies the server against the chain's root.
  static SslCtxPtr ClientContext(bool tickets = true) {
    ClientTlsConfig cfg;
    cfg.groups = {"X25519MLKEM768", "X25519"};
    cfg.tickets = tickets;
    cfg.trust_anchors = {chain_->root().cert.get()};
    auto ctx = MakeClientContext(cfg);
    EXPECT_TRUE(ctx.ok());
    return ctx.ok() ? std::move(*ctx) : nullptr;
  }

  static void ExpectPayload(const std::string& body, uint64_t size) {
    ASSERT_EQ(body.size(), size);
    for (uint64_t i = 0; i < size; ++i) {
      if (body[i] != PayloadByte(i)) {
        FAIL() << "payload byte " << i << " differs";
      }
    }
  }

  static inline std::unique_ptr<CertChain> chain_;
};

TEST_F(ServerTest, RootAnswersOkAndKeepsTheConnectionAlive) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  SslCtxPtr ctx = ClientContext();
  auto c = Client::Connect(server->address(), ctx.get());
  ASSERT_TRUE(c);
  EXPECT_STREQ(SSL_get_version(c->ssl()), "TLSv1.3");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c->Send(Get("/")));
    auto r = c->Read();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "OK\n");
    EXPECT_TRUE(r->keep_alive);
  }
  c.reset();
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.accepted, 1u);
  EXPECT_EQ(s.handshakes_full, 1u);
  EXPECT_EQ(s.handshakes_resumed, 0u);
  EXPECT_EQ(s.requests, 3u);
  EXPECT_EQ(s.handshake_failures.total(), 0u);
  EXPECT_GT(s.bytes_sent, 3 * 3u);
  EXPECT_GT(s.bytes_received, 0u);
  EXPECT_GT(s.wall_ns, 0);
  EXPECT_GT(s.worker_cpu.total_ns(), 0);
  EXPECT_GT(s.cpu_us_per_handshake(), 0);
  EXPECT_GT(s.handshakes_per_second(), 0);
}

TEST_F(ServerTest, PayloadsHaveExactlyTheRequestedBytes) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  SslCtxPtr ctx = ClientContext();
  auto c = Client::Connect(server->address(), ctx.get());
  ASSERT_TRUE(c);
  for (auto [path, size] : {std::pair{"/payload/10K", 10240u}, std::pair{"/payload/1M", 1u << 20},
                            std::pair{"/payload/100B", 100u}, std::pair{"/payload/0", 0u}}) {
    ASSERT_TRUE(c->Send(Get(path)));
    auto r = c->Read();
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_NE(r->head.find("application/octet-stream"), std::string::npos);
    ExpectPayload(r->body, size);
  }
  c.reset();
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.requests, 4u);
  EXPECT_GT(s.bytes_sent, (1u << 20) + 10240u + 100u);
}

TEST_F(ServerTest, PipelinedRequestsAreAnsweredInOrder) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  SslCtxPtr ctx = ClientContext();
  auto c = Client::Connect(server->address(), ctx.get());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->Send(Get("/") + Get("/payload/20K") + Get("/nope") + Get("/payload/3")));
  auto a = c->Read();
  auto b = c->Read();
  auto d = c->Read();
  auto e = c->Read();
  ASSERT_TRUE(a && b && d && e);
  EXPECT_EQ(a->body, "OK\n");
  ExpectPayload(b->body, 20480);
  EXPECT_EQ(d->status, 404);
  EXPECT_TRUE(d->keep_alive);
  EXPECT_EQ(e->body, "abc");
  c.reset();
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.requests, 4u);
  EXPECT_EQ(s.not_found, 1u);
}

TEST_F(ServerTest, ManyPipelinedAndSplitRequestsAreAllAnswered) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  SslCtxPtr ctx = ClientContext();
  auto c = Client::Connect(server->address(), ctx.get());
  ASSERT_TRUE(c);
  // More than one wake's worth of requests (the server yields between batches).
  std::string batch;
  for (int i = 0; i < 100; ++i) batch += Get(i % 2 == 0 ? "/" : "/payload/1K");
  ASSERT_TRUE(c->Send(batch));
  for (int i = 0; i < 100; ++i) {
    auto r = c->Read();
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->body.size(), i % 2 == 0 ? 3u : 1024u) << i;
  }
  // One request in three records, split inside the request line and inside the blank line.
  const std::string one = Get("/payload/5");
  ASSERT_TRUE(c->Send(one.substr(0, 7)));
  ASSERT_TRUE(c->Send(one.substr(7, one.size() - 8)));
  ASSERT_TRUE(c->Send(one.substr(one.size() - 1)));
  auto r = c->Read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "abcde");
  c.reset();
  server->Stop();
  EXPECT_EQ(server->Wait().requests, 101u);
}

TEST_F(ServerTest, HeadHasTheLengthButNoBody) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  SslCtxPtr ctx = ClientContext();
  auto c = Client::Connect(server->address(), ctx.get());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->Send("HEAD /payload/10K HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  auto h = c->Read(/*head_request=*/true);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(h->content_length, 10240u);
  // Had a body followed, this next response would not parse as one.
  ASSERT_TRUE(c->Send(Get("/")));
  auto g = c->Read();
  ASSERT_TRUE(g);
  EXPECT_EQ(g->body, "OK\n");
}

TEST_F(ServerTest, ConnectionCloseAndHttp10CloseAfterTheResponse) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  SslCtxPtr ctx = ClientContext();
  for (std::string request :
       {Get("/", /*keep_alive=*/false), std::string("GET / HTTP/1.0\r\n\r\n")}) {
    auto c = Client::Connect(server->address(), ctx.get());
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->Send(request));
    auto r = c->Read();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "OK\n");
    EXPECT_FALSE(r->keep_alive);
    EXPECT_TRUE(c->ClosedByServer());
  }
}

TEST_F(ServerTest, BadRequestsGetTheirStatusThenClose) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  SslCtxPtr ctx = ClientContext();
  struct Case {
    std::string request;
    int status;
  };
  for (const Case& k : {Case{"POST / HTTP/1.1\r\nHost: x\r\n\r\n", 405},
                        Case{"GET / HTTP/1.1\r\n\r\n", 400},  // no Host
                        Case{"GET / HTTP/1.1\r\nHost: x\r\nX: " + std::string(20000, 'a'), 431}}) {
    auto c = Client::Connect(server->address(), ctx.get());
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->Send(k.request));
    auto r = c->Read();
    ASSERT_TRUE(r) << k.status;
    EXPECT_EQ(r->status, k.status);
    EXPECT_FALSE(r->keep_alive);
    EXPECT_TRUE(c->ClosedByServer());
  }
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.methods_not_allowed, 1u);
  EXPECT_EQ(s.bad_requests, 1u);
  EXPECT_EQ(s.heads_too_large, 1u);
  EXPECT_EQ(s.handshakes_full, 3u);
}

// Resumed: whether the second connection, offering the first one's session, was resumed;
// both sides must agree.
void ExpectResumption(const ServerOptions& options, SSL_CTX* client_ctx, bool expected) {
  auto server = EmbeddedServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.error().message;
  SslSessionPtr session;
  {
    auto c = Client::Connect((*server)->address(), client_ctx);
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->Send(Get("/")));
    ASSERT_TRUE(c->Read());
    session = c->Session();
    ASSERT_TRUE(session);
  }
  {
    auto c = Client::Connect((*server)->address(), client_ctx, session.get());
    ASSERT_TRUE(c);
    EXPECT_EQ(SSL_session_reused(c->ssl()) == 1, expected);
    ASSERT_TRUE(c->Send(Get("/")));
    ASSERT_TRUE(c->Read());
  }
  (*server)->Stop();
  ServerStats s = (*server)->Wait();
  EXPECT_EQ(s.handshakes_full, expected ? 1u : 2u);
  EXPECT_EQ(s.handshakes_resumed, expected ? 1u : 0u);
  EXPECT_EQ(s.requests, 2u);
}

TEST_F(ServerTest, ResumesWithTicketsAndNotWithoutTicketsOrCache) {
  SslCtxPtr ctx = ClientContext();
  ServerOptions on = Options();
  on.tls.tickets = true;
  on.tls.session_cache = false;  // stateless tickets alone must do
  ExpectResumption(on, ctx.get(), true);
  ServerOptions off = Options();
  off.tls.tickets = false;
  off.tls.session_cache = false;
  ExpectResumption(off, ctx.get(), false);
}

TEST_F(ServerTest, SilentClientIsClosedAfterTheHandshakeTimeout) {
  ServerOptions o = Options();
  o.handshake_timeout = 200 * kMs;
  auto server = Start(o);
  ASSERT_TRUE(server);
  ScopedFd raw = test::BlockingConnect(server->address());
  ASSERT_TRUE(raw.valid());
  const Nanos t0 = MonotonicNow();
  EXPECT_TRUE(WaitForEof(raw.get()));
  EXPECT_GE(MonotonicNow() - t0, 190 * kMs);
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.handshake_failures.timeout, 1u);
  EXPECT_EQ(s.open_at_stop, 0u);
}

TEST_F(ServerTest, IdleKeepAliveConnectionIsClosedAfterTheIdleTimeout) {
  ServerOptions o = Options();
  o.idle_timeout = 200 * kMs;
  auto server = Start(o);
  ASSERT_TRUE(server);
  SslCtxPtr ctx = ClientContext();
  auto c = Client::Connect(server->address(), ctx.get());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->Send(Get("/")));
  ASSERT_TRUE(c->Read());
  const Nanos t0 = MonotonicNow();
  EXPECT_TRUE(c->ClosedByServer());
  EXPECT_GE(MonotonicNow() - t0, 150 * kMs);
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.idle_timeouts, 1u);
}

TEST_F(ServerTest, GarbageInsteadOfClientHelloIsATlsFailureAndServingGoesOn) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  ScopedFd raw = test::BlockingConnect(server->address());
  ASSERT_TRUE(raw.valid());
  const std::string plain = Get("/");  // HTTP where TLS was expected
  ASSERT_EQ(::send(raw.get(), plain.data(), plain.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(plain.size()));
  EXPECT_TRUE(WaitForEof(raw.get()));
  SslCtxPtr ctx = ClientContext();
  auto c = Client::Connect(server->address(), ctx.get());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->Send(Get("/")));
  auto r = c->Read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "OK\n");
  c.reset();
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.handshake_failures.protocol, 1u);
  EXPECT_EQ(s.handshake_failures.total(), 1u);
  EXPECT_FALSE(s.last_tls_error.empty());
  EXPECT_EQ(s.handshakes_full, 1u);
}

TEST_F(ServerTest, ClientThatRejectsTheCertificateIsAnAlert) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  // A different chain's root: the client's verification fails and it sends an alert.
  auto spec = ParseChainSpec("ecdsa-p256");
  auto other = MakeChain(*spec);
  ASSERT_TRUE(other.ok());
  ClientTlsConfig cfg;
  cfg.groups = {"X25519"};
  cfg.trust_anchors = {other->root().cert.get()};
  auto ctx = MakeClientContext(cfg);
  ASSERT_TRUE(ctx.ok());
  EXPECT_FALSE(Client::Connect(server->address(), ctx->get()));
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.handshake_failures.peer_alert, 1u);
  EXPECT_EQ(s.handshakes(), 0u);
}

TEST_F(ServerTest, OverTheConnectionLimitIsRefused) {
  ServerOptions o = Options();
  o.max_connections_per_thread = 1;
  auto server = Start(o);
  ASSERT_TRUE(server);
  SslCtxPtr ctx = ClientContext();
  auto first = Client::Connect(server->address(), ctx.get());
  ASSERT_TRUE(first);
  EXPECT_FALSE(Client::Connect(server->address(), ctx.get()));
  ASSERT_TRUE(first->Send(Get("/")));  // the first one is still served
  ASSERT_TRUE(first->Read());
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.refused, 1u);
  EXPECT_EQ(s.accepted, 2u);
  EXPECT_EQ(s.open_at_stop, 1u);
}

TEST_F(ServerTest, StopClosesOpenConnectionsAndReturns) {
  auto server = Start(Options());
  ASSERT_TRUE(server);
  // The silent connection comes first: the accept queue is FIFO, so once the second one has
  // been answered, the server holds both.
  ScopedFd silent = test::BlockingConnect(server->address());
  ASSERT_TRUE(silent.valid());
  SslCtxPtr ctx = ClientContext();
  auto idle = Client::Connect(server->address(), ctx.get());
  ASSERT_TRUE(idle);
  ASSERT_TRUE(idle->Send(Get("/")));
  ASSERT_TRUE(idle->Read());
  server->Stop();
  ServerStats s = server->Wait();
  EXPECT_EQ(s.open_at_stop, 2u);
  EXPECT_TRUE(idle->ClosedByServer());
  EXPECT_TRUE(WaitForEof(silent.get()));
  // Wait again: the same answer, no second join.
  EXPECT_EQ(server->Wait().accepted, s.accepted);
}

TEST_F(ServerTest, TwoThreadsBothServe) {
  ServerOptions o = Options();
  o.threads = 2;
  auto server = Start(o);
  ASSERT_TRUE(server);
  EXPECT_EQ(server->threads(), 2);
  SslCtxPtr ctx = ClientContext();
  constexpr int kConnections = 24;  // all on one thread by chance: 2^-23
  for (int i = 0; i < kConnections; ++i) {
    auto c = Client::Connect(server->address(), ctx.get());
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->Send(Get("/")));
    auto r = c->Read();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "OK\n");
  }
  server->Stop();
  ServerStats s = server->Wait();
  ASSERT_EQ(s.workers.size(), 2u);
  EXPECT_GT(s.workers[0].handshakes, 0u);
  EXPECT_GT(s.workers[1].handshakes, 0u);
  EXPECT_EQ(s.workers[0].handshakes + s.workers[1].handshakes, uint64_t{kConnections});
  EXPECT_EQ(s.requests, uint64_t{kConnections});
}

TEST_F(ServerTest, SecondServerOnTheSamePortIsRefused) {
  ServerOptions o = Options();
  o.threads = 2;
  auto first = Start(o);
  ASSERT_TRUE(first);
  o.listen = first->address();
  auto second = EmbeddedServer::Start(o);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("in use"), std::string::npos) << second.error().message;
}

TEST_F(ServerTest, SlhDsaChainCannotBeServed) {
  auto spec = ParseChainSpec("slh-dsa-sha2-128f");
  ASSERT_TRUE(spec.ok());
  auto chain = MakeChain(*spec);
  ASSERT_TRUE(chain.ok()) << chain.error().message;
  ServerOptions o = Options();
  o.chains = {&*chain};
  auto server = EmbeddedServer::Start(o);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.error().kind, ErrorKind::kUnsupported);
  EXPECT_NE(server.error().message.find("unknown certificate type"), std::string::npos)
      << server.error().message;
}

TEST(ServerGroups, TyposGetTheNearestNameAndOpenSslNamesPass) {
  EXPECT_TRUE(ValidateServerGroups("X25519MLKEM768/X25519:secp256r1").ok());
  EXPECT_TRUE(ValidateServerGroups("x448:ffdhe2048:?NoSuchGroup").ok());
  Status typo = ValidateServerGroups("X25519:X25519MLKEM76");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("did you mean X25519MLKEM768?"), std::string::npos)
      << typo.error().message;
  EXPECT_FALSE(ValidateServerGroups("").ok());
  EXPECT_FALSE(ValidateServerGroups("X25519::secp256r1").ok());
}

TEST(ServerPayload, ChunksAreContiguousViewsOfThePattern) {
  std::vector<char> buffer = MakePayloadBuffer();
  for (uint64_t offset : {uint64_t{0}, uint64_t{5}, uint64_t{kWriteChunk - 1}, uint64_t{1} << 20}) {
    std::span<const char> chunk = PayloadChunk(buffer, offset, 1u << 30);
    ASSERT_EQ(chunk.size(), kWriteChunk);
    for (size_t i = 0; i < chunk.size(); ++i) ASSERT_EQ(chunk[i], PayloadByte(offset + i));
  }
  EXPECT_EQ(PayloadChunk(buffer, 7, 10).size(), 10u);
}

// ---- the real binary ----

struct Child {
  pid_t pid = -1;
  ScopedFd out;  // stdout and stderr
};

Child Spawn(const std::vector<std::string>& args) {
  Child child;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return child;
  child.out.reset(fds[0]);
  ScopedFd write_end(fds[1]);
  std::vector<char*> argv;
  std::string bin = PQC_BENCH_BIN;
  argv.push_back(bin.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), 2);
  if (posix_spawn(&child.pid, bin.c_str(), &actions, nullptr, argv.data(), environ) != 0) {
    child.pid = -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  return child;
}

// ReadLine: one line of the child's output, waiting at most 20 s.
std::string ReadLine(int fd) {
  std::string line;
  char c;
  while (line.empty() || line.back() != '\n') {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20'000) != 1 || ::read(fd, &c, 1) != 1) break;
    line.push_back(c);
  }
  return line;
}

std::string ReadAll(int fd) {
  std::string out;
  for (std::string line; !(line = ReadLine(fd)).empty();) out += line;
  return out;
}

int ExitStatus(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST_F(ServerTest, BinaryServesForItsDurationAndExitsZero) {
  Child child = Spawn({"serve", "--listen", "127.0.0.1:0", "--duration", "2s"});
  ASSERT_GT(child.pid, 0);
  std::string line = ReadLine(child.out.get());
  const std::string prefix = "listening on 127.0.0.1:";
  ASSERT_EQ(line.rfind(prefix, 0), 0u) << line;
  EXPECT_NE(line.find("(threads 1, cert ecdsa-p256, groups X25519MLKEM768:X25519:"),
            std::string::npos)
      << line;
  const size_t start = std::string_view("listening on ").size();
  auto addr = ParseAddress(line.substr(start, line.find(' ', start) - start));
  ASSERT_TRUE(addr.ok()) << line;
  ClientTlsConfig cfg;
  cfg.groups = {"X25519MLKEM768"};
  auto ctx = MakeClientContext(cfg);  // no trust anchor: this chain is the child's
  ASSERT_TRUE(ctx.ok());
  auto c = Client::Connect(*addr, ctx->get());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->Send(Get("/", false)));
  auto r = c->Read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "OK\n");
  std::string rest = ReadAll(child.out.get());
  EXPECT_EQ(ExitStatus(child.pid), 0) << rest;
  EXPECT_NE(rest.find("handshakes    1 (1 full, 0 resumed)"), std::string::npos) << rest;
  EXPECT_NE(rest.find("errors        none"), std::string::npos) << rest;
}

TEST_F(ServerTest, BinaryStopsCleanlyOnSigterm) {
  Child child = Spawn({"serve", "--listen", "127.0.0.1:0", "--threads", "2"});
  ASSERT_GT(child.pid, 0);
  std::string line = ReadLine(child.out.get());
  ASSERT_EQ(line.rfind("listening on 127.0.0.1:", 0), 0u) << line;
  ASSERT_EQ(::kill(child.pid, SIGTERM), 0);
  std::string rest = ReadAll(child.out.get());
  EXPECT_EQ(ExitStatus(child.pid), 0) << rest;
  EXPECT_NE(rest.find("SIGTERM received"), std::string::npos) << rest;
}

TEST_F(ServerTest, BinaryExplainsWhatCannotBeServed) {
  for (auto [args, expected] :
       {std::pair{std::vector<std::string>{"serve", "--listen", "127.0.0.1:0", "--cert",
                                           "slh-dsa-sha2-128f"},
                  "unknown certificate type"},
        std::pair{std::vector<std::string>{"serve", "--listen", "127.0.0.1:0", "--groups",
                                           "X25519MLKEM76"},
                  "did you mean X25519MLKEM768?"},
        std::pair{std::vector<std::string>{"serve", "--listen", "127.0.0.1:0", "--duration", "1"},
                  "--duration"}}) {
    Child child = Spawn(args);
    ASSERT_GT(child.pid, 0);
    std::string out = ReadAll(child.out.get());
    EXPECT_EQ(ExitStatus(child.pid), 2) << out;
    EXPECT_NE(out.find(expected), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace pqc
