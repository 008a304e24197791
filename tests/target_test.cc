// The target drivers with real processes: `pqc-bench serve` and the set-up's nginx and HAProxy
// start,
// negotiate the arm's group in a real TLS 1.3 handshake with the load generator, serve
// /payload/10K as 10,240 bytes, report their own CPU, and leave no process behind; a bad
// configuration is an error naming the cause, never a hang. Also the child-process owner on
// its own (exec failure, SIGKILL after the grace period, reaping) and a server placed in
// another network namespace (as root).
#include "target/target.h"

#include <dirent.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "bench_child.h"
#include "client/load_runner.h"
#include "core/child_process.h"
#include "core/fd.h"
#include "net/socket.h"
#include "records/summary.h"
#include "server/embedded_server.h"
#include "target/haproxy_config.h"
#include "target/nginx_config.h"
#include "target/readiness.h"
#include "test_paths.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"
#include "tls/cert_files.h"

namespace pqc::target {
namespace {

using test::ChildrenOf;
using test::PidsMentioning;

std::string TempDir(const char* stem) {
  std::string t =
      (std::filesystem::temp_directory_path() / (std::string(stem) + "-XXXXXX")).string();
  EXPECT_NE(mkdtemp(t.data()), nullptr);
  return t;
}

// Our children whose command line contains `needle` (an nginx worker that has just forked
// still carries its master's title for a moment).
std::vector<pid_t> OurChildrenMentioning(const std::string& needle) {
  std::vector<pid_t> mine = ChildrenOf(getpid()), out;
  for (pid_t p : PidsMentioning(needle)) {
    if (std::find(mine.begin(), mine.end(), p) != mine.end()) out.push_back(p);
  }
  return out;
}

bool Alive(pid_t pid) {
  return kill(pid, 0) == 0 || errno != ESRCH;
}

class TargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("pqc-target-test");
    auto spec = ParseChainSpec("ecdsa-p256");
    ASSERT_TRUE(spec.ok());
    auto chain = MakeChain(*spec);
    ASSERT_TRUE(chain.ok()) << chain.error().message;
    chain_ = std::make_unique<CertChain>(std::move(*chain));
    auto files = WriteChainFiles(*chain_, dir_ + "/cert");
    ASSERT_TRUE(files.ok()) << files.error().message;
    config_.certs = {{files->chain_pem, files->leaf_key_pem}};
    config_.groups = "X25519MLKEM768:X25519";
    config_.payload_sizes = {10240, 100};
    work_ = dir_ + "/work";
    std::filesystem::create_directories(work_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  LoadOptions Options(const SocketAddress& target, const std::string& group, ConnMode mode) {
    LoadOptions o;
    o.target = target;
    o.mix = {{mode, 1.0}};
    o.mode_text = std::string(ConnModeName(mode));
    o.rate = 50;
    o.duration = 400'000'000;
    // Resumption needs a ticket from the warm-up: the tool's default second of it (200 ms once
    // ended, under CI's load beside the README's studies, with no nginx ticket received).
    o.warmup = mode == ConnMode::kResume || mode == ConnMode::kEarly ? 1'000'000'000 : 0;
    o.tls.groups = {group};
    o.tls.trust_anchors = {chain_->root().cert.get()};
    o.expect_group = group;
    o.timeout = 5'000'000'000;
    o.max_inflight = 200;
    o.path = "/payload/10K";
    o.max_lag_p99 = 10'000'000'000;  // negotiation, not the schedule, is judged here
    o.max_cpu_share = 10;
    return o;
  }

  // CheckServes: a few fresh connections of `o` negotiate its group and `scheme` and get
  // 10,240 bytes each; returns the Certificate message's bytes.
  uint32_t CheckServes(const LoadOptions& o, uint16_t scheme) {
    auto r = RunLoad(o, nullptr);
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (!r.ok()) return 0;
    size_t measured = 0;
    uint32_t cert_bytes = 0;
    for (const ConnectionRecord& c : r->connections) {
      if (!c.measured) continue;
      ++measured;
      EXPECT_TRUE(c.ok()) << ErrorClassName(c.error) << ": " << c.error_detail;
      EXPECT_EQ(c.protocol, o.protocol);
      EXPECT_EQ(c.group, o.expect_group);
      EXPECT_EQ(c.signature_scheme, scheme);
      EXPECT_FALSE(c.resumed);
      EXPECT_EQ(c.request_count, 1u);
      if (c.request_count != 1) continue;
      EXPECT_EQ(r->requests[c.first_request].status, 200u);
      EXPECT_EQ(r->requests[c.first_request].body_bytes, 10240u);
      cert_bytes = c.certificate_bytes;
    }
    EXPECT_GE(measured, 15u);
    EXPECT_TRUE(Summarize(*r).valid());
    return cert_bytes;
  }
  void CheckServes(const SocketAddress& addr, const std::string& group) {
    CheckServes(Options(addr, group, ConnMode::kFresh), 0x0403);  // ecdsa_secp256r1_sha256
  }

  std::string dir_, work_;
  std::unique_ptr<CertChain> chain_;
  ServerConfig config_;
};

std::string NginxExe() {
  if (const char* env = getenv("PQC_NGINX"); env != nullptr && *env != '\0') return env;
  return PQC_NGINX_BIN;
}

std::string HaproxyExe() {
  if (const char* env = getenv("PQC_HAPROXY"); env != nullptr && *env != '\0') return env;
  return PQC_HAPROXY_BIN;
}

// Threads of a process (/proc/<pid>/task).
size_t ThreadsOf(pid_t pid) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid))) {
    ++n;
  }
  return n;
}

TEST_F(TargetTest, EmbeddedNegotiatesServesCountsAndStops) {
  auto t = MakeEmbeddedTarget(PQC_BENCH_BIN);
  EXPECT_EQ(t->name(), "embedded");
  auto addr = t->Start(config_, Placement{}, work_);
  ASSERT_TRUE(addr.ok()) << addr.error().message;
  EXPECT_NE(addr->port(), 0);
  std::vector<pid_t> pids = OurChildrenMentioning(work_ + "/serve-stats.json");
  ASSERT_EQ(pids.size(), 1u);
  CheckServes(*addr, "X25519MLKEM768");
  auto stats = t->Stop();
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_GT(stats->cpu_user_s + stats->cpu_sys_s, 0);
  EXPECT_GT(stats->wall_s, 0);
  ASSERT_TRUE(stats->handshakes.has_value());
  EXPECT_GE(*stats->handshakes, 15u);
  EXPECT_EQ(stats->details["handshakes"]["full"].get<uint64_t>(), *stats->handshakes);
  EXPECT_GT(stats->details["cpu_us_per_handshake"].get<double>(), 0);
  EXPECT_EQ(stats->log_path, work_ + "/serve.log");
  EXPECT_FALSE(stats->exit.empty());  // how it ended, typed (serve --nginx prints it)
  EXPECT_EQ(stats->details["exit"].get<std::string>(), stats->exit);
  EXPECT_FALSE(Alive(pids[0]));
}

TEST_F(TargetTest, NginxNegotiatesServesResumesAndLeavesNoProcess) {
  auto t = MakeNginxTarget(NginxExe());
  config_.threads = 2;
  config_.session_cache = false;  // tickets alone must resume
  auto addr = t->Start(config_, Placement{}, work_);
  ASSERT_TRUE(addr.ok()) << addr.error().message;
  std::vector<pid_t> masters = OurChildrenMentioning(work_ + "/nginx.conf");
  ASSERT_EQ(masters.size(), 1u);
  CheckServes(*addr, "X25519MLKEM768");
  CheckServes(*addr, "X25519");
  // Every name of a size the embedded server accepts is served, with its bytes.
  auto o = Options(*addr, "X25519", ConnMode::kResume);
  o.path = "/payload/100B";
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const ConnectionRecord& c : r->connections) {
    if (!c.measured) continue;
    ASSERT_TRUE(c.ok()) << c.error_detail;
    EXPECT_TRUE(c.resumed);
    EXPECT_EQ(r->requests[c.first_request].body_bytes, 100u);
  }
  std::vector<pid_t> workers = ChildrenOf(masters[0]);
  EXPECT_EQ(workers.size(), 2u);  // worker_processes = threads
  auto stats = t->Stop();
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_GT(stats->cpu_user_s + stats->cpu_sys_s, 0);
  EXPECT_FALSE(stats->handshakes.has_value());
  EXPECT_FALSE(stats->details["killed"].get<bool>());
  EXPECT_EQ(stats->details["exit"].get<std::string>(), stats->exit);
  EXPECT_FALSE(Alive(masters[0]));
  for (pid_t w : workers) EXPECT_FALSE(Alive(w)) << "worker " << w;
  // The payload file holds the embedded server's bytes.
  std::ifstream f(work_ + "/www/payload/10K", std::ios::binary);
  std::string body((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_EQ(body.size(), 10240u);
  EXPECT_EQ(body.substr(0, 3), "abc");
}

TEST_F(TargetTest, HaproxyNegotiatesServesEveryPayloadResumesAndLeavesNoProcess) {
  auto t = MakeHaproxyTarget(HaproxyExe());
  EXPECT_EQ(t->name(), "haproxy");
  config_.threads = 2;
  config_.session_cache = false;  // tickets alone must resume
  config_.payload_sizes = {100, 10240, 1048576};
  auto addr = t->Start(config_, Placement{}, work_);
  ASSERT_TRUE(addr.ok()) << addr.error().message;
  std::vector<pid_t> pids = OurChildrenMentioning(work_ + "/haproxy.cfg");
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_GE(ThreadsOf(pids[0]), 2u);  // nbthread = threads (one process)
  CheckServes(*addr, "X25519MLKEM768");
  CheckServes(*addr, "X25519");
  // Every name of a size the embedded server accepts is served, with its bytes: 1M is far
  // above what HAProxy answers from its configuration (one 16 KiB buffer).
  for (const char* path : {"/payload/100B", "/payload/1M", "/payload/1048576"}) {
    SCOPED_TRACE(path);
    auto o = Options(*addr, "X25519", ConnMode::kResume);
    o.path = path;
    const uint64_t want = std::string_view(path).ends_with("100B") ? 100 : 1048576;
    auto r = RunLoad(o, nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const ConnectionRecord& c : r->connections) {
      if (!c.measured) continue;
      ASSERT_TRUE(c.ok()) << ErrorClassName(c.error) << ": " << c.error_detail;
      EXPECT_TRUE(c.resumed);
      EXPECT_EQ(r->requests[c.first_request].status, 200u);
      EXPECT_EQ(r->requests[c.first_request].body_bytes, want);
    }
  }
  auto o = Options(*addr, "X25519", ConnMode::kFresh);
  o.path = "/payload/7K";  // not written: HAProxy's Lua service says 404, as the others do
  o.duration = 100'000'000;
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->requests.empty());
  EXPECT_EQ(r->requests.back().status, 404u);
  auto stats = t->Stop();
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_GT(stats->cpu_user_s + stats->cpu_sys_s, 0);
  EXPECT_FALSE(stats->handshakes.has_value());
  EXPECT_FALSE(stats->details["killed"].get<bool>());
  EXPECT_EQ(stats->details["config"].get<std::string>(), work_ + "/haproxy.cfg");
  EXPECT_FALSE(Alive(pids[0]));
}

// early_data = true: every driver's server accepts 0-RTT on its tickets (the embedded one's
// --early-data, nginx's ssl_early_data, HAProxy's allow-0rtt) and answer the early request with its
// bytes.
TEST_F(TargetTest, EveryDriverAcceptsEarlyDataWhenTheArmTurnsItOn) {
  config_.early_data = true;
  for (auto& t : {MakeEmbeddedTarget(PQC_BENCH_BIN), MakeNginxTarget(NginxExe()),
                  MakeHaproxyTarget(HaproxyExe())}) {
    SCOPED_TRACE(t->name());
    auto addr = t->Start(config_, Placement{}, work_);
    ASSERT_TRUE(addr.ok()) << addr.error().message;
    auto r = RunLoad(Options(*addr, "X25519MLKEM768", ConnMode::kEarly), nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    size_t measured = 0;
    for (const ConnectionRecord& c : r->connections) {
      if (!c.measured) continue;
      ++measured;
      ASSERT_TRUE(c.ok()) << ErrorClassName(c.error) << ": " << c.error_detail;
      EXPECT_TRUE(c.resumed);
      EXPECT_EQ(c.early_data, EarlyData::kAccepted);
      EXPECT_EQ(r->requests[c.first_request].body_bytes, 10240u);
    }
    EXPECT_GE(measured, 15u);
    EXPECT_TRUE(Summarize(*r).valid());
    ASSERT_TRUE(t->Stop().ok());
  }
}

// HTTP/2 (issue 42): the embedded server (`serve --protocol h1,h2`), nginx (`http2 on`) and
// HAProxy (`alpn h2,http/1.1`) serve a client that offers ALPN h2 — every connection's group,
// scheme and protocol checked — fresh, resumed with three streams one after another on each
// connection, with the first request as early data, and fresh with six requests on three
// concurrent streams (each finished stream's place taken by the next request); without h2 on,
// every connection fails and says why.
TEST_F(TargetTest, EveryDriverServesHttp2WhenTheArmAsks) {
  config_.early_data = true;
  for (auto& t : {MakeEmbeddedTarget(PQC_BENCH_BIN), MakeNginxTarget(NginxExe()),
                  MakeHaproxyTarget(HaproxyExe())}) {
    SCOPED_TRACE(t->name());
    config_.protocols = {Protocol::kH1, Protocol::kH2};
    auto addr = t->Start(config_, Placement{}, work_);
    ASSERT_TRUE(addr.ok()) << addr.error().message;
    LoadOptions fresh = Options(*addr, "X25519MLKEM768", ConnMode::kFresh);
    fresh.protocol = Protocol::kH2;
    CheckServes(fresh, 0x0403);  // ecdsa_secp256r1_sha256
    struct Case {
      ConnMode mode;
      uint32_t requests, streams;
    };
    for (const Case& arm : {Case{ConnMode::kResume, 3, 1}, Case{ConnMode::kEarly, 1, 1},
                            Case{ConnMode::kFresh, 6, 3}}) {
      const ConnMode mode = arm.mode;
      SCOPED_TRACE(ConnModeName(mode));
      LoadOptions o = Options(*addr, "X25519MLKEM768", mode);
      o.protocol = Protocol::kH2;
      o.requests = arm.requests;
      o.streams = arm.streams;
      auto r = RunLoad(o, nullptr);
      ASSERT_TRUE(r.ok()) << r.error().message;
      size_t measured = 0;
      for (const ConnectionRecord& c : r->connections) {
        if (!c.measured) continue;
        ++measured;
        ASSERT_TRUE(c.ok()) << ErrorClassName(c.error) << ": " << c.error_detail;
        EXPECT_EQ(c.protocol, Protocol::kH2);
        EXPECT_EQ(c.group, "X25519MLKEM768");
        // RFC 9113 §3.4: a server's preface is a SETTINGS frame, before any response.
        EXPECT_GE(c.h2_frames_before_response, 1u);
        EXPECT_EQ(c.resumed, mode != ConnMode::kFresh);
        EXPECT_EQ(c.request_count, o.requests);
        if (arm.streams > 1) {
          // The first three leave together; each later one only once a stream has ended.
          const RequestRecord* q = &r->requests[c.first_request];
          EXPECT_EQ(q[1].sent, q[0].sent);
          EXPECT_EQ(q[2].sent, q[0].sent);
          for (uint32_t i = arm.streams; i < c.request_count; ++i) {
            EXPECT_GE(q[i].sent, std::min({q[0].last_byte, q[1].last_byte, q[2].last_byte}));
          }
        }
        if (mode == ConnMode::kEarly) {
          EXPECT_EQ(c.early_data, EarlyData::kAccepted);
        }
        for (uint32_t k = 0; k < c.request_count; ++k) {
          const RequestRecord& q = r->requests[c.first_request + k];
          EXPECT_EQ(q.status, 200u);
          EXPECT_EQ(q.body_bytes, 10240u);
          EXPECT_GE(q.first_byte, q.sent);
        }
      }
      EXPECT_GE(measured, 15u);
      EXPECT_TRUE(Summarize(*r).valid());
    }
    ASSERT_TRUE(t->Stop().ok());
    // The same server without h2: nginx refuses the handshake (no_application_protocol); the
    // embedded server and HAProxy answer with no ALPN, and the client refuses to measure
    // HTTP/1.1 as HTTP/2.
    config_.protocols = {Protocol::kH1};
    addr = t->Start(config_, Placement{}, work_);
    ASSERT_TRUE(addr.ok()) << addr.error().message;
    fresh.target = *addr;
    auto r = RunLoad(fresh, nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    size_t refused = 0;
    for (const ConnectionRecord& c : r->connections) {
      if (!c.measured) continue;
      if (t->name() == "nginx") {
        EXPECT_EQ(c.error, ErrorClass::kTlsAlert);
        EXPECT_NE(c.error_detail.find("no application protocol"), std::string::npos)
            << c.error_detail;
      } else {
        EXPECT_EQ(c.error, ErrorClass::kHttp);
        EXPECT_NE(c.error_detail.find("did not agree to HTTP/2 over TLS over TCP (ALPN h2: it "
                                      "chose none)"),
                  std::string::npos)
            << c.error_detail;
      }
      ++refused;
    }
    EXPECT_GE(refused, 15u);
    EXPECT_FALSE(Summarize(*r).valid());
    ASSERT_TRUE(t->Stop().ok());
  }
}

// One server, two chains (the original's Phase 2): each client kind gets the chain its
// signature_algorithms ask for, checked on every connection, from the embedded server, nginx and
// HAProxy.
TEST_F(TargetTest, EveryDriverServesEachClientKindTheChainItOffersFor) {
  auto spec = ParseChainSpec("ml-dsa-65");
  ASSERT_TRUE(spec.ok());
  auto mldsa = MakeChain(*spec);
  ASSERT_TRUE(mldsa.ok()) << mldsa.error().message;
  auto files = WriteChainFiles(*mldsa, dir_ + "/cert-ml-dsa");
  ASSERT_TRUE(files.ok()) << files.error().message;
  config_.certs.push_back({files->chain_pem, files->leaf_key_pem});
  struct Kind {
    const char* sigalgs;
    uint16_t scheme;
  };
  for (auto& t : {MakeEmbeddedTarget(PQC_BENCH_BIN), MakeNginxTarget(NginxExe()),
                  MakeHaproxyTarget(HaproxyExe())}) {
    SCOPED_TRACE(t->name());
    auto addr = t->Start(config_, Placement{}, work_);
    ASSERT_TRUE(addr.ok()) << addr.error().message;
    // OpenSSL (the embedded server, nginx) serves the first scheme the client offers that a
    // chain can sign with; HAProxy picks the chain itself, ranking ECDSA over RSA over any
    // other key type whatever the client's order: a client that prefers ML-DSA but also
    // offers ECDSA gets ECDSA there, and only an ML-DSA-only client gets ML-DSA.
    const bool haproxy = t->name() == "haproxy";
    std::map<uint16_t, uint32_t> cert_bytes;  // scheme → Certificate message bytes
    for (const Kind& k :
         {Kind{"mldsa65", 0x0905},
          Kind{"mldsa65:ecdsa_secp256r1_sha256", static_cast<uint16_t>(haproxy ? 0x0403 : 0x0905)},
          Kind{"ecdsa_secp256r1_sha256:rsa_pss_rsae_sha256", 0x0403}}) {
      SCOPED_TRACE(k.sigalgs);
      LoadOptions o = Options(*addr, "X25519MLKEM768", ConnMode::kFresh);
      o.tls.sigalgs = k.sigalgs;
      o.tls.trust_anchors.push_back(mldsa->root().cert.get());
      o.expect_sigalg = SignatureSchemeName(k.scheme);
      cert_bytes[k.scheme] = CheckServes(o, k.scheme);
    }
    // The ML-DSA-65 leaf (1,952-byte key, 3,309-byte signature) against the ECDSA one.
    EXPECT_GT(cert_bytes[0x0905], cert_bytes[0x0403] + 4000);
    ASSERT_TRUE(t->Stop().ok());
  }
}

TEST_F(TargetTest, MissingCertificateFileIsNamedByEveryDriver) {
  config_.certs[0].chain_file = dir_ + "/no-such-chain.pem";
  for (auto& t : {MakeEmbeddedTarget(PQC_BENCH_BIN), MakeNginxTarget(NginxExe()),
                  MakeHaproxyTarget(HaproxyExe())}) {
    const Nanos start = MonotonicNow();
    auto addr = t->Start(config_, Placement{}, work_);
    ASSERT_FALSE(addr.ok()) << t->name();
    EXPECT_NE(addr.error().message.find(config_.certs[0].chain_file), std::string::npos)
        << addr.error().message;
    EXPECT_LT(MonotonicNow() - start, 5'000'000'000);
  }
}

TEST_F(TargetTest, ConfigurationTheServerRejectsIsReportedWithItsLog) {
  config_.groups = "NoSuchGroup";
  for (auto& t : {MakeEmbeddedTarget(PQC_BENCH_BIN), MakeNginxTarget(NginxExe()),
                  MakeHaproxyTarget(HaproxyExe())}) {
    auto addr = t->Start(config_, Placement{}, work_);
    ASSERT_FALSE(addr.ok()) << t->name();
    EXPECT_NE(addr.error().message.find("stopped at start"), std::string::npos)
        << addr.error().message;
    EXPECT_NE(addr.error().message.find("NoSuchGroup"), std::string::npos) << addr.error().message;
  }
}

// The default results directory is relative ("results"), so `run` hands the drivers relative
// work directories and certificate paths. nginx resolves relative paths against its prefix:
// every driver must make them absolute before a child sees them.
TEST_F(TargetTest, RelativeWorkDirectoryAndCertificatePathsWorkForEveryDriver) {
  const std::filesystem::path here = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  ServerCert& cert = config_.certs[0];
  cert.chain_file = std::filesystem::relative(cert.chain_file, dir_).string();
  cert.key_file = std::filesystem::relative(cert.key_file, dir_).string();
  ASSERT_EQ(cert.chain_file.front(), 'c');  // "cert/…": relative indeed
  std::filesystem::create_directories("results/run/trials/0000");
  for (auto& t : {MakeEmbeddedTarget(PQC_BENCH_BIN), MakeNginxTarget(NginxExe()),
                  MakeHaproxyTarget(HaproxyExe())}) {
    auto addr = t->Start(config_, Placement{}, "results/run/trials/0000");
    ASSERT_TRUE(addr.ok()) << t->name() << ": " << addr.error().message;
    CheckServes(*addr, "X25519");
    auto stats = t->Stop();
    ASSERT_TRUE(stats.ok()) << t->name() << ": " << stats.error().message;
  }
  EXPECT_TRUE(std::filesystem::exists("results/run/trials/0000/nginx-error.log"));
  EXPECT_TRUE(std::filesystem::exists("results/run/trials/0000/haproxy.cfg"));
  EXPECT_FALSE(std::filesystem::exists("results/run/trials/0000/nginx-temp/results"));
  std::filesystem::current_path(here);
}

TEST_F(TargetTest, ExternalWaitsForTheServerAndHasNoStats) {
  ServerOptions so;
  so.listen = ParseAddress("127.0.0.1:0").value();
  so.chains = {chain_.get()};
  so.tls.groups = "X25519";
  auto server = EmbeddedServer::Start(so);
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto t = MakeExternalTarget((*server)->address());
  auto addr = t->Start(config_, Placement{}, work_);
  ASSERT_TRUE(addr.ok()) << addr.error().message;
  EXPECT_EQ(addr->ToString(), (*server)->address().ToString());
  CheckServes(*addr, "X25519");
  auto stats = t->Stop();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->cpu_user_s + stats->cpu_sys_s, 0);
  EXPECT_FALSE(stats->handshakes.has_value());
  (*server)->Stop();
  (*server)->Wait();
}

TEST(TargetKindTest, ParsesTheFourNames) {
  EXPECT_EQ(ParseTargetKind("nginx").value(), TargetKind::kNginx);
  EXPECT_EQ(ParseTargetKind("haproxy").value(), TargetKind::kHaproxy);
  EXPECT_EQ(ParseTargetKind("embedded").value(), TargetKind::kEmbedded);
  EXPECT_EQ(ParseTargetKind("external").value(), TargetKind::kExternal);
  auto bad = ParseTargetKind("apache");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("embedded, nginx, haproxy, external"), std::string::npos);
}

// ConfigTestArm: the arm both configuration generators are checked against: HRR-forcing
// groups, tickets and cache off, three threads, one cipher suite.
ServerConfig ConfigTestArm() {
  ServerConfig c;
  c.groups = "X25519MLKEM768/X25519";
  c.certs = {{"/d/chain.pem", "/d/key.pem"}};
  c.tickets = false;
  c.session_cache = false;
  c.threads = 3;
  c.ciphersuites = "TLS_AES_128_GCM_SHA256";
  return c;
}

TEST(HaproxyConfigTest, FollowsTheArm) {
  ServerConfig c = ConfigTestArm();
  const HaproxyFiles f = HaproxyFilesIn("/w");
  std::string text = HaproxyConfigText(c, LoopbackAddress(4433), f, 1024);
  for (const char* want :
       {"nbthread 3\n", "maxconn 480\n", "tune.ssl.cachesize 0\n",
        "bind 127.0.0.1:4433 ssl ssl-min-ver TLSv1.3 alpn http/1.1 prefer-client-ciphers "
        "default-crt "
        "\"/w/haproxy-cert/1.pem\" "
        "curves \"X25519MLKEM768/X25519\" ciphersuites \"TLS_AES_128_GCM_SHA256\" "
        "no-tls-tickets\n",
        "http-request return status 200 content-type text/plain file \"/w/haproxy-www/ok\" if "
        "{ path / }",
        "http-request return status 404"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  // No payload sizes: no Lua service; no logging at all.
  EXPECT_EQ(text.find("lua"), std::string::npos) << text;
  EXPECT_EQ(text.find("\n  log "), std::string::npos) << text;
  c.tickets = c.session_cache = c.early_data = true;
  c.certs.push_back({"/d/ml-dsa.pem", "/d/ml-dsa.key"});  // a second chain: a second crt
  c.payload_sizes = {10240};
  text = HaproxyConfigText(c, ParseAddress("[::1]:4433").value(), f, 1024);
  EXPECT_EQ(text.find("cachesize"), std::string::npos) << text;
  EXPECT_EQ(text.find("no-tls-tickets"), std::string::npos) << text;
  for (const char* want :
       {"bind ipv6@::1:4433 ssl",
        "default-crt \"/w/haproxy-cert/1.pem\" default-crt \"/w/haproxy-cert/2.pem\"",
        " allow-0rtt\n", "lua-load-per-thread \"/w/haproxy-payload.lua\"",
        "http-request use-service lua.payload if { path_beg /payload/ }"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  EXPECT_EQ(text.find("quic"), std::string::npos) << text;  // h1 arms: TCP only
  // An h3 arm: QUIC over the compatibility layer, on the same port number with the same chains.
  c.protocols = {Protocol::kH1, Protocol::kH3};
  text = HaproxyConfigText(c, LoopbackAddress(4433), f, 1024);
  for (const char* want :
       {"  limited-quic\n",
        "bind quic4@127.0.0.1:4433 ssl ssl-min-ver TLSv1.3 alpn h3 prefer-client-ciphers "
        "default-crt \"/w/haproxy-cert/1.pem\" default-crt \"/w/haproxy-cert/2.pem\"",
        "bind 127.0.0.1:4433 ssl ssl-min-ver TLSv1.3 alpn http/1.1"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  EXPECT_NE(HaproxyConfigText(c, ParseAddress("[::1]:4433").value(), f, 1024)
                .find("bind quic6@::1:4433 ssl"),
            std::string::npos);
  EXPECT_EQ(text.find("quic-force-retry"), std::string::npos) << text;
  c.quic_retry = true;  // on the QUIC bind only
  const std::string retry = HaproxyConfigText(c, LoopbackAddress(4433), f, 1024);
  const size_t quic_bind = retry.find("bind quic4@127.0.0.1:4433 ssl");
  ASSERT_NE(quic_bind, std::string::npos) << retry;
  const std::string quic_line = retry.substr(quic_bind, retry.find('\n', quic_bind) - quic_bind);
  EXPECT_TRUE(quic_line.ends_with(" quic-force-retry")) << quic_line;
  EXPECT_EQ(retry.find("quic-force-retry"), retry.rfind("quic-force-retry")) << retry;
  // The service knows every name of every size, and reads the bodies from the payload files.
  const std::string lua = HaproxyLuaText({10240, 100}, f);
  for (const char* want : {"\"10K\", ", "\"10240B\", ", "\"100B\", ",
                           "io.open(\"/w/haproxy-www/payload\" .. \"/\" .. name, \"rb\")",
                           "core.register_service(\"payload\", \"http\""}) {
    EXPECT_NE(lua.find(want), std::string::npos) << want << "\n" << lua;
  }
}

TEST(NginxConfigTest, FollowsTheArm) {
  ServerConfig c = ConfigTestArm();
  std::string text = NginxConfigText(c, LoopbackAddress(4433), NginxFilesIn("/w"), 1024);
  for (const char* want :
       {"worker_processes 3;", "listen 127.0.0.1:4433 ssl;", "ssl_protocols TLSv1.3;",
        "ssl_conf_command Groups \"X25519MLKEM768/X25519\";",
        "ssl_conf_command Ciphersuites \"TLS_AES_128_GCM_SHA256\";", "ssl_session_cache off;",
        "ssl_session_tickets off;", "access_log off;", "daemon off;", "master_process on;",
        "pid \"/w/nginx.pid\";", "sendfile on;", "return 200 \"OK\\n\";"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  c.tickets = c.session_cache = true;
  text = NginxConfigText(c, LoopbackAddress(4433), NginxFilesIn("/w"), 1024);
  EXPECT_NE(text.find("ssl_session_cache shared:"), std::string::npos);
  EXPECT_NE(text.find("ssl_session_tickets on;"), std::string::npos);
  EXPECT_EQ(text.find("ssl_early_data"), std::string::npos);
  c.early_data = true;
  text = NginxConfigText(c, LoopbackAddress(4433), NginxFilesIn("/w"), 1024);
  EXPECT_NE(text.find("ssl_early_data on;"), std::string::npos);
  c.certs.push_back({"/d/ml-dsa.pem", "/d/ml-dsa.key"});  // a second chain: a second pair
  text = NginxConfigText(c, LoopbackAddress(4433), NginxFilesIn("/w"), 1024);
  const size_t first = text.find("ssl_certificate \"/d/chain.pem\";");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_NE(text.find("ssl_certificate_key \"/d/key.pem\";", first), std::string::npos);
  const size_t second = text.find("ssl_certificate \"/d/ml-dsa.pem\";", first);
  ASSERT_NE(second, std::string::npos) << text;
  EXPECT_NE(text.find("ssl_certificate_key \"/d/ml-dsa.key\";", second), std::string::npos);
  EXPECT_EQ(text.find("quic"), std::string::npos) << text;  // h1 arms: TCP only
  c.protocols = {Protocol::kH1, Protocol::kH3};  // an h3 arm: UDP on the same port, beside TCP
  text = NginxConfigText(c, LoopbackAddress(4433), NginxFilesIn("/w"), 1024);
  for (const char* want : {"listen 127.0.0.1:4433 ssl;", "listen 127.0.0.1:4433 quic reuseport;",
                           "http3 on;", "quic_retry off;"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  c.quic_retry = true;  // an arm of an exposed server: every address validated first
  EXPECT_NE(
      NginxConfigText(c, LoopbackAddress(4433), NginxFilesIn("/w"), 1024).find("quic_retry on;"),
      std::string::npos);
  EXPECT_EQ(PayloadNames(10240), (std::vector<std::string>{"10240", "10240B", "10K"}));
  EXPECT_EQ(PayloadNames(100), (std::vector<std::string>{"100", "100B"}));
}

TEST(ChildProcessTest, MissingExecutableIsAnErrorNamingIt) {
  std::string dir = TempDir("pqc-child-test");
  auto c =
      ChildProcess::Spawn({.argv = {dir + "/no-such-server"}, .output_path = dir + "/out.log"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find(dir + "/no-such-server"), std::string::npos)
      << c.error().message;
  EXPECT_NE(c.error().message.find("No such file"), std::string::npos) << c.error().message;
  auto ns = ChildProcess::Spawn({.argv = {"/bin/true"},
                                 .output_path = dir + "/out.log",
                                 .netns_path = dir + "/no-such-netns"});
  ASSERT_FALSE(ns.ok());
  EXPECT_NE(ns.error().message.find(dir + "/no-such-netns"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ChildProcessTest, SigtermIgnoredMeansSigkillAfterGrace) {
  std::string dir = TempDir("pqc-child-test");
  auto c =
      ChildProcess::Spawn({.argv = {"/bin/sh", "-c", "trap '' TERM; echo ready; sleep 30 & wait"},
                           .output_path = dir + "/out.log"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  // Bounded: the shell says "ready" once its trap is set.
  for (int i = 0; i < 500 && ReadTail(dir + "/out.log").find("ready") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const pid_t pid = c->pid();
  auto e = c->Terminate(300'000'000);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->killed);
  EXPECT_TRUE(WIFSIGNALED(e->status));
  EXPECT_FALSE(Alive(pid));
  std::filesystem::remove_all(dir);
}

TEST(ChildProcessTest, DestructorKillsAndReapsAndEnvIsPassed) {
  std::string dir = TempDir("pqc-child-test");
  pid_t pid = 0;
  {
    auto c = ChildProcess::Spawn({.argv = {"/bin/sh", "-c", "echo $PQC_TEST_VALUE; exec sleep 30"},
                                  .output_path = dir + "/out.log",
                                  .env = {"PQC_TEST_VALUE=from-the-parent"}});
    ASSERT_TRUE(c.ok());
    pid = c->pid();
    for (int i = 0; i < 500 && ReadTail(dir + "/out.log").empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_FALSE(c->Exited());
  }
  EXPECT_FALSE(Alive(pid));  // no zombie either: kill(pid, 0) fails with ESRCH once reaped
  EXPECT_EQ(ReadTail(dir + "/out.log"), "from-the-parent");
  std::filesystem::remove_all(dir);
}

// A network namespace of this test's own (root only): a thread unshares into a new one, brings
// its loopback up and stays there, so that /proc/<pid>/task/<tid>/ns/net names it.
class NetnsHolder {
 public:
  NetnsHolder() {
    thread_ = std::thread([this] {
      std::unique_lock lock(mu_);
      if (unshare(CLONE_NEWNET) == 0) {
        ScopedFd s(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        ifreq ifr{};
        std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
        if (ioctl(s.get(), SIOCGIFFLAGS, &ifr) == 0) {
          ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
          if (ioctl(s.get(), SIOCSIFFLAGS, &ifr) == 0) {
            path_ = "/proc/" + std::to_string(getpid()) + "/task/" +
                    std::to_string(syscall(SYS_gettid)) + "/ns/net";
          }
        }
      }
      ready_ = true;
      cv_.notify_all();
      cv_.wait(lock, [this] { return done_; });
    });
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return ready_; });
  }
  ~NetnsHolder() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  const std::string& path() const { return path_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool ready_ = false, done_ = false;
  std::string path_;
  std::thread thread_;
};

TEST_F(TargetTest, PlacedInANetworkNamespace) {
  if (geteuid() != 0) GTEST_SKIP() << "creating a network namespace needs root";
  NetnsHolder ns;
  ASSERT_FALSE(ns.path().empty()) << "could not make a network namespace";
  for (auto& t : {MakeEmbeddedTarget(PQC_BENCH_BIN), MakeNginxTarget(NginxExe()),
                  MakeHaproxyTarget(HaproxyExe())}) {
    Placement p;
    p.netns_path = ns.path();
    auto addr = t->Start(config_, p, work_);
    ASSERT_TRUE(addr.ok()) << t->name() << ": " << addr.error().message;
    // Inside the namespace it serves; RunLoad's threads inherit the namespace of this thread.
    Status inside = InNetns(ns.path(), [&]() -> Status {
      CheckServes(*addr, "X25519");
      return {};
    });
    EXPECT_TRUE(inside.ok()) << inside.error().message;
    // From this namespace, nothing listens there.
    int err = 0;
    auto fd = ConnectTcpNonBlocking(*addr, &err);
    if (fd) {
      pollfd pfd{fd->get(), POLLOUT, 0};
      poll(&pfd, 1, 1000);
      EXPECT_NE(SocketError(fd->get()), 0) << t->name() << " is reachable from outside";
    }
    auto stats = t->Stop();
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    EXPECT_GT(stats->cpu_user_s + stats->cpu_sys_s, 0);
  }
}

}  // namespace
}  // namespace pqc::target
