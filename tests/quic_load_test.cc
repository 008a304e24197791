// quic_load_test — the load generator over HTTP/3 (protocol h3) against the embedded HTTP/3
// server, both real, on 127.0.0.1: every connection recorded like a TCP one (the phases in
// order, no connect phase), negotiating what the arm asks; per connection the client's Initial
// datagrams (two for the hybrid's ClientHello) and whether the server's flight outgrew three
// times them (the anti-amplification limit: an ml-dsa-65 flight does, an ecdsa-p256 one does
// not); resumption and several requests per connection; a server that never answers ends
// every connection as a timeout; and the CLI pair `serve --protocol h1,h3` / `load --protocol
// h3` as a user types it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "client/load_runner.h"
#include "records/summary.h"
#include "embedded_fixture.h"
#include "measured.h"
#include "net/socket.h"
#include "quic/h3_server.h"
#include "test_paths.h"
#include "tls/context.h"

namespace pqc {
namespace {

class QuicLoadTest : public ::testing::Test {
 protected:
  void StartServer(const std::string& chain_text, const std::string& groups) {
    chain_ = test::FreshChain(chain_text);
    ASSERT_TRUE(chain_);
    ServerTlsConfig tls;
    tls.transport = Transport::kQuic;
    tls.groups = groups;
    auto ctx = MakeServerContext(tls, *chain_);
    ASSERT_TRUE(ctx.ok()) << ctx.error().message;
    ctx_ = std::move(*ctx);
    quic::H3ServerConfig cfg;
    cfg.listen = *ParseAddress("127.0.0.1:0");
    cfg.ctx = ctx_.get();
    auto s = quic::H3Server::Start(cfg);
    ASSERT_TRUE(s.ok()) << s.error().message;
    server_ = std::move(*s);
  }

  void TearDown() override {
    if (server_) server_->Stop();
  }

  LoadOptions Options(const std::string& group, ConnMode mode) {
    LoadOptions o;
    o.protocol = Protocol::kH3;
    o.tls.transport = Transport::kQuic;
    o.target = ParseAddress("127.0.0.1:0")->WithPort(server_->port());
    o.mix = {{mode, 1.0}};
    o.mode_text = std::string(ConnModeName(mode));
    o.rate = 50;
    o.duration = 1'000'000'000;
    o.warmup = 200'000'000;
    o.tls.groups = {group};
    o.tls.trust_anchors = {chain_->root().cert.get()};
    o.tls.verify_name = "localhost";
    o.expect_group = group;
    o.timeout = 5'000'000'000;
    o.max_inflight = 1'000;
    // Negotiation and the wire, not the schedule: two shared cores (see load_test.cc).
    o.max_lag_p99 = 10'000'000'000;
    o.max_cpu_share = 10;
    return o;
  }

  static std::vector<const ConnectionRecord*> Measured(const LoadResult& r) {
    return test::Measured(r);
  }

  // Unanswered: short fresh load at `target`, a socket that answers no Initial properly, each
  // connection given 600 ms; also how long the whole load took.
  Result<LoadResult> Unanswered(const SocketAddress& target, Nanos* took) {
    StartServer("ecdsa-p256", "X25519");  // only for Options(); its port is not used
    LoadOptions o = Options("X25519", ConnMode::kFresh);
    o.target = target;
    o.duration = 200'000'000;
    o.warmup = 0;
    o.rate = 20;
    o.timeout = 600'000'000;
    const Nanos start = MonotonicNow();
    auto r = RunLoad(o, nullptr);
    *took = MonotonicNow() - start;
    return r;
  }

  std::unique_ptr<CertChain> chain_;
  SslCtxPtr ctx_;
  std::unique_ptr<quic::H3Server> server_;
};

TEST_F(QuicLoadTest, FreshConnectionsAreRecordedLikeTcpOnesWithTheirDatagrams) {
  StartServer("ecdsa-p256", "X25519MLKEM768:X25519");
  LoadOptions o = Options("X25519MLKEM768", ConnMode::kFresh);
  o.expect_sigalg = "ecdsa_secp256r1_sha256";
  o.path = "/payload/10K";
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto measured = Measured(*r);
  ASSERT_GE(measured.size(), 45u);  // 50/s for 1 s
  for (const ConnectionRecord* c : measured) {
    ASSERT_TRUE(c->ok()) << ErrorClassName(c->error) << ": " << c->error_detail;
    EXPECT_EQ(c->protocol, Protocol::kH3);
    EXPECT_EQ(c->group, "X25519MLKEM768");
    EXPECT_EQ(c->signature_scheme, 0x0403);
    EXPECT_FALSE(c->resumed);
    EXPECT_GT(c->certificate_bytes, 0u);
    // The hybrid's ClientHello (about 1,400 bytes) takes two Initial datagrams, each padded to
    // at least 1,200 bytes; the ecdsa-p256 flight fits the 3× budget they earn.
    EXPECT_EQ(c->initial_datagrams, 2u);
    EXPECT_GE(c->handshake_bytes_written, 2400u);
    EXPECT_GE(c->handshake_datagrams_sent, 2u);
    EXPECT_GE(c->handshake_datagrams_received, 1u);
    EXPECT_FALSE(c->amplification_limited);
    EXPECT_EQ(c->handshake_segments_read, 0u);  // a TCP count: none over QUIC
    ASSERT_EQ(c->request_count, 1u);
    const RequestRecord& q = r->requests[c->first_request];
    EXPECT_LE(c->intended_start, c->actual_start);
    EXPECT_LE(c->actual_start, c->tcp_established);  // the first Initial: no connect
    EXPECT_LT(c->tcp_established, c->tls_done);
    EXPECT_LE(c->tls_done, q.sent);
    EXPECT_LT(q.sent, q.first_byte);
    EXPECT_LE(q.first_byte, q.last_byte);
    EXPECT_LE(q.last_byte, c->closed);
    EXPECT_EQ(q.status, 200u);
    EXPECT_EQ(q.body_bytes, 10240u);
  }
  LoadSummary s = Summarize(*r);
  EXPECT_TRUE(s.valid()) << (s.invalid_reasons.empty() ? "" : s.invalid_reasons.front());
  EXPECT_EQ(s.phases[static_cast<size_t>(Phase::kConnect)].count, 0u);  // QUIC has none
  EXPECT_EQ(s.phases[static_cast<size_t>(Phase::kHandshake)].count, measured.size());
}

TEST_F(QuicLoadTest, AnMlDsa65FlightWaitsForTheClientWithEitherGroup) {
  // ml-dsa-65's flight (about 10.6 kB) is over 3 × one Initial (3.6 kB) and 3 × two (7.2 kB):
  // held back with X25519 and with X25519MLKEM768 alike (core/quic_flight.h predicts both).
  StartServer("ml-dsa-65", "X25519MLKEM768:X25519");
  for (const char* group : {"X25519", "X25519MLKEM768"}) {
    SCOPED_TRACE(group);
    LoadOptions o = Options(group, ConnMode::kFresh);
    o.expect_sigalg = "mldsa65";
    o.duration = 500'000'000;
    auto r = RunLoad(o, nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto measured = Measured(*r);
    ASSERT_GE(measured.size(), 20u);
    for (const ConnectionRecord* c : measured) {
      ASSERT_TRUE(c->ok()) << c->error_detail;
      EXPECT_EQ(c->initial_datagrams, std::string(group) == "X25519" ? 1u : 2u);
      EXPECT_TRUE(c->amplification_limited)
          << c->handshake_bytes_read << " bytes received for " << c->handshake_bytes_written;
      EXPECT_GT(c->handshake_bytes_read, 9000u);
    }
    EXPECT_TRUE(Summarize(*r).valid());
  }
}

TEST_F(QuicLoadTest, ResumeResumesAndReuseSendsItsRequestsOnOneConnection) {
  StartServer("ml-dsa-65", "X25519MLKEM768");
  LoadOptions resume = Options("X25519MLKEM768", ConnMode::kResume);
  auto r = RunLoad(resume, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto measured = Measured(*r);
  ASSERT_GE(measured.size(), 45u);
  for (const ConnectionRecord* c : measured) {
    ASSERT_TRUE(c->ok()) << c->error_detail;
    EXPECT_TRUE(c->offered_session);
    EXPECT_TRUE(c->resumed);
    EXPECT_EQ(c->certificate_bytes, 0u);  // no certificate on a resumed handshake
  }
  EXPECT_TRUE(Summarize(*r).valid());

  LoadOptions reuse = Options("X25519MLKEM768", ConnMode::kReuse);
  reuse.requests = 4;
  auto k = RunLoad(reuse, nullptr);
  ASSERT_TRUE(k.ok()) << k.error().message;
  for (const ConnectionRecord* c : Measured(*k)) {
    ASSERT_TRUE(c->ok()) << c->error_detail;
    ASSERT_EQ(c->request_count, 4u);
    for (uint32_t i = 1; i < 4; ++i) {
      EXPECT_GE(k->requests[c->first_request + i].sent,
                k->requests[c->first_request + i - 1].last_byte);
    }
  }
}

TEST_F(QuicLoadTest, ASilentServerEndsEveryConnectionAsATimeout) {
  // A UDP socket that reads nothing: the Initials go unanswered.
  auto silent = BindUdp(*ParseAddress("127.0.0.1:0"), false);
  ASSERT_TRUE(silent.ok()) << silent.error().message;
  Nanos took = 0;
  auto r = Unanswered(*LocalAddress(silent->get()), &took);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->connections.empty());
  for (const ConnectionRecord& c : r->connections) {
    EXPECT_EQ(c.error, ErrorClass::kTimeout) << c.error_detail;
    EXPECT_EQ(c.tls_done, 0);
  }
  EXPECT_FALSE(Summarize(*r).valid());
  EXPECT_LT(took, 5'000'000'000);  // bounded by the timeout, not QUIC's idle
}

TEST_F(QuicLoadTest, AClosedPortIsRefusedAtOnce) {
  StartServer("ecdsa-p256", "X25519");
  LoadOptions o = Options("X25519", ConnMode::kFresh);
  server_->Stop();
  server_.reset();  // its sockets closed: the kernel answers with ICMP port unreachable
  o.duration = 200'000'000;
  o.warmup = 0;
  o.rate = 20;
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->connections.empty());
  for (const ConnectionRecord& c : r->connections) {
    EXPECT_EQ(c.error, ErrorClass::kRefused) << c.error_detail;
    EXPECT_LT(c.closed - c.actual_start, 1'000'000'000);  // not a timeout
  }
  EXPECT_FALSE(Summarize(*r).valid());
}

TEST_F(QuicLoadTest, AServerAnsweringGarbageEndsEveryConnectionAsATimeout) {
  // Every datagram is answered with 1,200 bytes that look like a long-header packet and
  // decrypt as nothing: the client drops them (RFC 9000 §5.2) and gives up at its timeout.
  auto garbage = BindUdp(*ParseAddress("127.0.0.1:0"), false);
  ASSERT_TRUE(garbage.ok()) << garbage.error().message;
  std::atomic<bool> stop{false};
  std::atomic<int> answered{0};
  std::thread echo([&] {
    timeval tv{0, 50'000};
    ::setsockopt(garbage->get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::vector<unsigned char> junk(1200);
    uint32_t x = 12345;
    while (!stop.load()) {
      unsigned char in[1500];
      sockaddr_storage from{};
      socklen_t len = sizeof from;
      if (::recvfrom(garbage->get(), in, sizeof in, 0, reinterpret_cast<sockaddr*>(&from), &len) <
          0) {
        continue;
      }
      for (auto& b : junk) b = static_cast<unsigned char>((x = x * 1103515245 + 12345) >> 24);
      junk[0] = 0xc0 | (junk[0] & 0x0f);  // a long header, Initial
      (void)::sendto(garbage->get(), junk.data(), junk.size(), 0,
                     reinterpret_cast<sockaddr*>(&from), len);
      ++answered;
    }
  });
  Nanos took = 0;
  auto r = Unanswered(*LocalAddress(garbage->get()), &took);
  stop = true;
  echo.join();
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->connections.empty());
  EXPECT_GT(answered.load(), 0);
  for (const ConnectionRecord& c : r->connections) {
    EXPECT_EQ(c.error, ErrorClass::kTimeout) << c.error_detail;
    EXPECT_EQ(c.tls_done, 0);
  }
  EXPECT_FALSE(Summarize(*r).valid());
  EXPECT_LT(took, 5'000'000'000);
}

TEST_F(QuicLoadTest, AServerStoppedMidFlightLeavesEveryConnectionClassified) {
  StartServer("ml-dsa-65", "X25519");
  LoadOptions o = Options("X25519", ConnMode::kFresh);
  o.path = "/payload/1M";  // long responses, so some are in flight at the stop
  o.duration = 1'000'000'000;
  o.warmup = 0;
  o.rate = 40;
  o.timeout = 1'000'000'000;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    server_->Stop();
  });
  const Nanos start = MonotonicNow();
  auto r = RunLoad(o, nullptr);
  // The load's own time: the server's stop (joined next) drains what its workers were sending,
  // which under TSan takes seconds and is not what this bound is about.
  const Nanos load_ns = MonotonicNow() - start;
  stopper.join();
  ASSERT_TRUE(r.ok()) << r.error().message;
  size_t ok = 0, failed = 0;
  for (const ConnectionRecord& c : r->connections) {
    if (c.ok()) {
      ++ok;
      continue;
    }
    ++failed;
    EXPECT_TRUE(c.error == ErrorClass::kRefused || c.error == ErrorClass::kClosed ||
                c.error == ErrorClass::kTimeout)
        << ErrorClassName(c.error) << ": " << c.error_detail;
    EXPECT_NE(c.closed, 0);
  }
  // Those that ended before the stop are fine (none, in a slow sanitizer build); every other
  // one ended with a class, and some could not have ended before it.
  std::printf("  %zu connections complete before the stop, %zu classified after it\n", ok, failed);
  EXPECT_GT(failed, 0u);
  EXPECT_FALSE(Summarize(*r).valid());
  EXPECT_LT(load_ns, 6'000'000'000);  // the schedule, then at most the timeout
}

// Cli: serve over TCP and QUIC on one port number; load over h3 verifying the chain, with the
// JSON's datagram facts; then load over h1 against the same server.
// ServeChild: `pqc-bench serve ARGS --write-ca CA` in a child process, its output in a log,
// until its "listening on" line (`line`, `address`); SIGTERM and its exit status at Stop.
struct ServeChild {
  std::string ca, log, line, address;
  pid_t pid = -1;

  ServeChild(const std::string& name, std::vector<std::string> args) {
    const std::string dir = ::testing::TempDir();
    ca = dir + "/" + name + "-ca.pem";
    log = dir + "/" + name + "-serve.log";
    std::remove(log.c_str());
    args.insert(args.begin(), {PQC_BENCH_BIN, "serve"});
    args.insert(args.end(), {"--write-ca", ca, "--duration", "60s"});
    pid = fork();
    if (pid == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(PQC_BENCH_BIN, argv.data());
      _exit(127);
    }
    for (int i = 0; i < 500 && address.empty(); ++i) {
      std::ifstream in(log);
      if (std::getline(in, line) && line.starts_with("listening on ")) {
        address = line.substr(13, line.find(' ', 13) - 13);
      } else {
        usleep(20'000);
      }
    }
  }
  // Stop: SIGTERM; true when serve then exited 0.
  bool Stop() {
    kill(pid, SIGTERM);
    int status = 0;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
};

TEST(QuicLoadCliTest, ServeBothProtocolsAndLoadOverH3) {
  const std::string json = ::testing::TempDir() + "/quic-load.json";
  ServeChild serve("quic",
                   {"--listen", "127.0.0.1:0", "--protocol", "h1,h3", "--cert", "ml-dsa-65"});
  ASSERT_FALSE(serve.address.empty()) << "serve printed no 'listening on' line";
  EXPECT_NE(serve.line.find("protocol h1,h3"), std::string::npos) << serve.line;
  // On loopback no Retry by default (--quic-retry auto).
  EXPECT_NE(serve.line.find("QUIC Retry off"), std::string::npos) << serve.line;
  const std::string common = std::string(PQC_BENCH_BIN) + " load --target " + serve.address +
                             " --ca " + serve.ca + " --rate 40 --duration 1s --warmup 0.2s" +
                             " --group X25519MLKEM768 --max-lag-p99 10s";
  EXPECT_EQ(std::system((common + " --protocol h3 --json " + json + " > /dev/null").c_str()), 0);
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(j["valid"].get<bool>());
  EXPECT_EQ(j["arm"]["protocol"], "h3");
  EXPECT_EQ(j["quic"]["initial_datagrams"]["2"], j["connections"]);
  EXPECT_EQ(j["quic"]["amplification_limited"], j["connections"]);
  EXPECT_EQ(j["quic"]["retried"], 0);
  EXPECT_EQ(std::system((common + " --protocol h1 > /dev/null").c_str()), 0);
  EXPECT_NE(std::system((common + " --protocol h2 > /dev/null 2>&1").c_str()), 0);
  EXPECT_TRUE(serve.Stop());
}

// `serve --quic-retry on`: every address validated first (a Retry, H3Server's own test checks
// the client receives it), and the load over it still valid; `auto` turns it on for an address
// beyond loopback (here every interface; nothing is sent to it).
TEST(QuicLoadCliTest, ServeValidatesAddressesWhenAskedOrExposed) {
  ServeChild on("quic-retry",
                {"--listen", "127.0.0.1:0", "--protocol", "h3", "--quic-retry", "on"});
  ASSERT_FALSE(on.address.empty()) << "serve printed no 'listening on' line";
  EXPECT_NE(on.line.find("QUIC Retry on"), std::string::npos) << on.line;
  const std::string json = ::testing::TempDir() + "/quic-retry.json";
  const std::string load = std::string(PQC_BENCH_BIN) + " load --target " + on.address + " --ca " +
                           on.ca + " --protocol h3 --rate 20 --duration 1s" +
                           " --warmup 0.2s --max-lag-p99 10s --json " + json + " > /dev/null";
  EXPECT_EQ(std::system(load.c_str()), 0);
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["quic"]["retried"], j["connections"]);  // each connection's Retry, recorded
  EXPECT_TRUE(on.Stop());
  ServeChild exposed("quic-exposed", {"--listen", "0.0.0.0:0", "--protocol", "h3"});
  ASSERT_FALSE(exposed.address.empty()) << "serve printed no 'listening on' line";
  EXPECT_NE(exposed.line.find("QUIC Retry on"), std::string::npos) << exposed.line;
  EXPECT_TRUE(exposed.Stop());
}

}  // namespace
}  // namespace pqc
