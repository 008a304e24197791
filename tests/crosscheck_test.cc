// Cross-check of the load generator's clock against an independent client: `openssl s_time`
// of the same OpenSSL and `load --mode fresh` against the same nginx arm (one worker,
// X25519MLKEM768, ecdsa-p256 chain) on loopback must agree on the mean time of one connection.
//
// Like for like (s_time's source, apps/s_time.c):
//  * s_time -new -www /: per connection, TCP connect (TCP_NODELAY), a full TLS 1.3 handshake,
//    "GET / HTTP/1.0", read until the server closes, close with SO_LINGER 0 (RST). One
//    connection at a time (closed loop). Its groups come from an OPENSSL_CONF system_default
//    section (it has no -groups flag): one group, so one key share, as ours. -CAfile makes
//    it verify the chain's signature as our client does with --ca (without a trust store
//    OpenSSL gives up before checking any signature).
//  * ours: fresh mode, "GET / HTTP/1.1", a closed loop of one connection (closed_loop 1: the
//    next starts when the previous ended, as in s_time; a low open-loop rate instead leaves
//    both processes idle between connections, and every wake-up then waits for a core); per
//    connection actual start (socket()) → last response byte.
//  * s_time's mean = its wall time (spawn to exit, measured here: its own "real seconds" are
//    whole seconds) / connections. Start-up (exec, loading the CA) is included: a few ms in
//    seconds, it biases s_time slightly slower.
// Interleaved rounds so that drift of the shared machine does not favour one side.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <thread>
#include <vector>

#include "client/load_runner.h"
#include "core/child_process.h"
#include "link/link.h"
#include "link/netns.h"
#include "target/readiness.h"
#include "target/target.h"
#include "tls/cert_chain.h"
#include "tls/cert_files.h"

namespace pqc::target {
namespace {

constexpr const char* kGroup = "X25519MLKEM768";
constexpr int kRounds = 3;  // interleaved rounds, each its own ratio: the median is reported
// s_time's time per connection is the slope of its wall time over connections between a short
// and a long run: every run also pays ~0.3 s once (start-up, the CA, exit), which would add
// ~10 % to a 3-second run's wall / n.
constexpr int kShortSeconds = 1, kLongSeconds = 3;
constexpr int kLoadSeconds = 2;
// Like for like is the cycle: s_time can only give wall time per connection (its teardown and
// the step to the next included), so ours is compared as the span of its closed loop over its
// connections. bench/crosscheck.py measures 0.92–0.97 here on a quiet machine (our
// per-connection time, which leaves out our own teardown, 0.87–0.93). The bar is wider than
// the 10 % wanted because these two shared cores see bursts of other jobs between the rounds;
// it still fails on a wrong clock unit, a missed phase or a different handshake.
constexpr double kMinRatio = 0.8, kMaxRatio = 1.25;

std::string NginxExe() {
  if (const char* env = getenv("PQC_NGINX"); env != nullptr && *env != '\0') return env;
  return PQC_NGINX_BIN;
}

struct Side {
  double seconds = 0;
  uint64_t connections = 0;
  double span_seconds = 0;  // ours: first measured start → last measured end, per round
  double mean_us() const {
    return connections ? seconds * 1e6 / static_cast<double>(connections) : 0;
  }
};

// Arm: one nginx arm (one worker, kGroup, ecdsa-p256) and the s_time configuration for it,
// in this namespace or, with a Link, in its server namespace (clients in its client one).
struct Arm {
  std::string dir, conf, root_pem, client_netns;
  std::unique_ptr<Target> nginx;
  std::unique_ptr<CertChain> chain;
  SocketAddress addr;
};

void StartArm(Arm& arm, const link::Link* net) {
  arm.dir = (std::filesystem::temp_directory_path() / "pqc-crosscheck-XXXXXX").string();
  ASSERT_NE(mkdtemp(arm.dir.data()), nullptr);
  auto chain = MakeChain(ParseChainSpec("ecdsa-p256").value());
  ASSERT_TRUE(chain.ok());
  arm.chain = std::make_unique<CertChain>(std::move(*chain));
  auto files = WriteChainFiles(*arm.chain, arm.dir + "/cert");
  ASSERT_TRUE(files.ok());
  arm.root_pem = files->root_pem;
  ServerConfig config;
  config.groups = kGroup;
  config.certs = {{files->chain_pem, files->leaf_key_pem}};
  Placement where;
  if (net != nullptr) {
    where.netns_path = net->server_netns_path();
    where.listen_host = net->server_ip();
    where.port = 8443;
    arm.client_netns = net->client_netns_path();
  }
  arm.nginx = MakeNginxTarget(NginxExe());
  auto addr = arm.nginx->Start(config, where, arm.dir);
  ASSERT_TRUE(addr.ok()) << addr.error().message;
  arm.addr = *addr;
  arm.conf = arm.dir + "/s_time.cnf";
  std::ofstream(arm.conf) << "openssl_conf = init\n[init]\nssl_conf = ssl\n[ssl]\n"
                             "system_default = sd\n[sd]\nGroups = "
                          << kGroup << "\nMinProtocol = TLSv1.3\n";
}

void StopArm(Arm& arm) {
  ASSERT_TRUE(arm.nginx->Stop().ok());
  std::filesystem::remove_all(arm.dir);
}

// STimeRound: `openssl s_time -new -www /` for `seconds`, in the client namespace if any.
void STimeRound(const Arm& arm, int seconds, Side& side) {
  auto child = ChildProcess::Spawn(
      {.argv = {PQC_OPENSSL_BIN, "s_time", "-connect", arm.addr.ToString(), "-new", "-www", "/",
                "-CAfile", arm.root_pem, "-time", std::to_string(seconds)},
       .output_path = arm.dir + "/s_time.out",
       .netns_path = arm.client_netns,
       .env = {"OPENSSL_CONF=" + arm.conf}});
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto e = child->WaitExit(int64_t{seconds + 30} * 1'000'000'000);
  ASSERT_TRUE(e.ok()) << e.error().message;
  std::string out = ReadTail(arm.dir + "/s_time.out", 1'000'000);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"((\d+) connections in [\d.]+s;)"))) << out;
  EXPECT_EQ(out.find("ERROR"), std::string::npos) << out;
  side.connections += std::stoull(m[1]);
  side.seconds += e->wall_s;
}

// LoadRound: our client in a closed loop of one connection (the next starts when the previous
// ends, as s_time's loop does); per connection actual start → last response byte. In the
// client namespace if any (a thread that entered it).
void LoadRound(const Arm& arm, int seconds, Side& side) {
  LoadOptions o;
  o.target = arm.addr;
  o.mix = {{ConnMode::kFresh, 1.0}};
  o.closed_loop = 1;
  o.max_inflight = 1;
  o.duration = int64_t{seconds} * 1'000'000'000;
  o.warmup = 200'000'000;
  o.timeout = 10'000'000'000;
  o.tls.groups = {kGroup};
  o.tls.trust_anchors = {arm.chain->root().cert.get()};
  o.expect_group = kGroup;
  std::optional<Result<LoadResult>> r;
  std::thread client([&] {
    std::optional<Result<link::ScopedNetns>> in;
    if (!arm.client_netns.empty()) {
      in.emplace(link::ScopedNetns::Enter(arm.client_netns));
      if (!*in) return;
    }
    r.emplace(RunLoad(o, nullptr));
  });
  client.join();
  ASSERT_TRUE(r.has_value()) << "could not enter " << arm.client_netns;
  ASSERT_TRUE(r->ok()) << r->error().message;
  Nanos first = 0, last = 0;
  for (const ConnectionRecord& c : (*r)->connections) {
    if (!c.measured) continue;
    ASSERT_TRUE(c.ok()) << c.error_detail;
    ASSERT_EQ(c.group, kGroup);
    const Nanos end = (*r)->requests[c.first_request].last_byte;
    side.seconds += static_cast<double>(end - c.actual_start) / 1e9;
    ++side.connections;
    first = first == 0 ? c.actual_start : std::min(first, c.actual_start);
    last = std::max(last, end);
  }
  side.span_seconds += static_cast<double>(last - first) / 1e9;
}

double Compare(const Side& s_time, const Side& ours, const char* where) {
  EXPECT_GT(s_time.connections, 0u);
  EXPECT_GT(ours.connections, 0u);
  const double ratio = ours.mean_us() / s_time.mean_us();
  std::cout << where << ": s_time " << s_time.connections << " connections, mean "
            << s_time.mean_us() << " us; load " << ours.connections << " connections, mean "
            << ours.mean_us() << " us; load/s_time = " << ratio << "\n";
  ::testing::Test::RecordProperty("s_time_mean_us", std::to_string(s_time.mean_us()));
  ::testing::Test::RecordProperty("load_mean_us", std::to_string(ours.mean_us()));
  ::testing::Test::RecordProperty("ratio", std::to_string(ratio));
  return ratio;
}

// LoopbackRatio: kRounds interleaved rounds of s_time (short and long, for its slope) and our
// load on one arm, each round its own ratio of our cycle per connection over s_time's; the
// median of the rounds, or nullopt after a fatal failure. Per round, not pooled: a slope is a
// difference of two runs, so a burst of other jobs during one long run moves a pooled slope by
// tens of per cent (CI, 2026-12-05: 0.78 then 0.69 with our cycle steady at 1.43 ms); the
// median lets one such round pass by.
std::optional<double> LoopbackRatio(Arm& arm, int attempt) {
  std::vector<double> ratios;
  for (int round = 0; round < kRounds; ++round) {
    Side s_short, s_long, ours;
    STimeRound(arm, kShortSeconds, s_short);
    if (::testing::Test::HasFatalFailure()) return std::nullopt;
    LoadRound(arm, kLoadSeconds, ours);
    if (::testing::Test::HasFatalFailure()) return std::nullopt;
    STimeRound(arm, kLongSeconds, s_long);
    if (::testing::Test::HasFatalFailure()) return std::nullopt;
    EXPECT_GT(s_long.connections, s_short.connections);
    EXPECT_GT(ours.connections, 0u);
    if (s_long.connections <= s_short.connections || ours.connections == 0) return std::nullopt;
    const double s_time_us = (s_long.seconds - s_short.seconds) * 1e6 /
                             static_cast<double>(s_long.connections - s_short.connections);
    const double cycle_us = ours.span_seconds * 1e6 / static_cast<double>(ours.connections);
    ratios.push_back(cycle_us / s_time_us);
    std::cout << "loopback, attempt " << attempt << " round " << round + 1 << ": s_time "
              << s_time_us << " us per connection (slope, "
              << s_long.connections + s_short.connections << " connections); load cycle "
              << cycle_us << " us, per connection " << ours.mean_us() << " us (" << ours.connections
              << "); cycle/s_time = " << ratios.back() << "\n";
    const std::string key = std::to_string(attempt) + "_" + std::to_string(round + 1);
    ::testing::Test::RecordProperty("s_time_us_" + key, std::to_string(s_time_us));
    ::testing::Test::RecordProperty("load_cycle_us_" + key, std::to_string(cycle_us));
    // Our own per-connection time never exceeds our cycle (it leaves out teardown).
    EXPECT_LE(ours.mean_us(), cycle_us * 1.001);
  }
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  std::cout << "loopback, attempt " << attempt << ": median cycle/s_time = " << median << "\n";
  return median;
}

TEST(CrosscheckTest, LoadAgreesWithOpensslSTime) {
  Arm arm;
  ASSERT_NO_FATAL_FAILURE(StartArm(arm, nullptr));
  // A second measurement only when the first is out of range: a burst of other jobs on these
  // two shared cores once put one measurement at 1.44 (CI, 2026-12-03) and the next three at
  // ≤ 1.25. A wrong clock unit, a missed phase or a different handshake is out of range twice.
  std::optional<double> ratio = LoopbackRatio(arm, 1);
#if !defined(__SANITIZE_ADDRESS__)
  if (ratio && (*ratio < kMinRatio || *ratio > kMaxRatio)) {
    std::cout << "out of [" << kMinRatio << ", " << kMaxRatio << "]: measuring once more\n";
    ratio = LoopbackRatio(arm, 2);
  }
#endif
  StopArm(arm);
  ASSERT_TRUE(ratio.has_value());
  ::testing::Test::RecordProperty("ratio", std::to_string(*ratio));
#if defined(__SANITIZE_ADDRESS__)
  // Our client is instrumented (several times slower), s_time is not: no timing comparison,
  // only that both sides ran the same arm (checked above).
  GTEST_SKIP() << "timing not comparable in a sanitizer build (cycle/s_time " << *ratio << ")";
#else
  EXPECT_GE(*ratio, kMinRatio);
  EXPECT_LE(*ratio, kMaxRatio);
#endif
}

// At 70 ms of emulated RTT both clients need three round trips per connection (TCP connect,
// TLS handshake, request → response and the server's close), so the wire dominates and the
// issue's 10 % holds even on a busy machine, and under a sanitizer.
TEST(CrosscheckTest, LoadAgreesWithOpensslSTimeWithin10PercentAt70MsRtt) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (the emulated link's namespaces)";
  link::LinkProfile profile;
  profile.rtt = 70'000'000;
  auto net = link::Link::Create(profile);
  ASSERT_TRUE(net.ok()) << net.error().message;
  Arm arm;
  ASSERT_NO_FATAL_FAILURE(StartArm(arm, net->get()));
  Side s_time, ours;
  for (int round = 0; round < 2; ++round) {
    ASSERT_NO_FATAL_FAILURE(STimeRound(arm, 2, s_time));
    ASSERT_NO_FATAL_FAILURE(LoadRound(arm, 2, ours));
  }
  StopArm(arm);
  const double ratio = Compare(s_time, ours, "rtt 70 ms");
  EXPECT_GE(ours.mean_us(), 3 * 70'000.0);  // three round trips, never fewer
  EXPECT_NEAR(ratio, 1.0, 0.10);
}

}  // namespace
}  // namespace pqc::target
