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
//  * On loopback both run at the same time (SharedRound): time per connection over the same
//    seconds, so drift of the shared machine meets both. At 70 ms of RTT, one after the other:
//    s_time's mean = its wall time (spawn to exit, measured here: its own "real seconds" are
//    whole seconds) / connections, start-up included (a few ms in seconds).
#include <gtest/gtest.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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
#include "test_paths.h"
#include "tls/cert_chain.h"
#include "tls/cert_files.h"

namespace pqc::target {
namespace {

constexpr const char* kGroup = "X25519MLKEM768";
constexpr int kRounds = 3;  // rounds, each its own ratios: the medians are judged
// s_time's run lengths: whole seconds by its clock (time(NULL)), so a 1-second run lasts 0–1 s
// plus its start-up, a 3-second one 2–3 s plus the same.
constexpr int kShortSeconds = 1, kLongSeconds = 3;
// load/s_time: the two clients' time per connection over the same seconds. A wrong clock unit,
// a missed phase or a different handshake falls far outside; the bar is wider than the 10 %
// wanted: the two clients share one nginx worker and one core, fairly only on average.
constexpr double kMinRatio = 0.8, kMaxRatio = 1.25;
// recorded/wall: our connections' recorded times over the seconds they span. At most 1 (a
// closed loop of one: connections never overlap) plus the last one's overhang; at least 0.75
// (only teardown and the step to the next connection are left out: 0.87–0.93 of the cycle on
// a quiet machine, bench/crosscheck.py).
constexpr double kMinClock = 0.75, kMaxClock = 1.02;

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
    where.listen = net->server_address(8443);
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

// STimeRun: one `openssl s_time -new -www /`, its span on this process's clock (the one our
// load records its timestamps on) and the connections it made.
struct STimeRun {
  Nanos start = 0, end = 0;
  uint64_t connections = 0;
  double seconds() const { return static_cast<double>(end - start) / 1e9; }
};

// RunSTime: `openssl s_time -new -www /` for `seconds`, in the client namespace if any.
void RunSTime(const Arm& arm, int seconds, STimeRun& run) {
  run.start = MonotonicNow();
  auto child = ChildProcess::Spawn(
      {.argv = {PQC_OPENSSL_BIN, "s_time", "-connect", arm.addr.ToString(), "-new", "-www", "/",
                "-CAfile", arm.root_pem, "-time", std::to_string(seconds)},
       .output_path = arm.dir + "/s_time.out",
       .netns_path = arm.client_netns,
       .env = {"OPENSSL_CONF=" + arm.conf}});
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto e = child->WaitExit(int64_t{seconds + 30} * 1'000'000'000);
  ASSERT_TRUE(e.ok()) << e.error().message;
  run.end = MonotonicNow();
  std::string out = ReadTail(arm.dir + "/s_time.out", 1'000'000);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"((\d+) connections in [\d.]+s;)"))) << out;
  EXPECT_EQ(out.find("ERROR"), std::string::npos) << out;
  run.connections = std::stoull(m[1]);
}

void STimeRound(const Arm& arm, int seconds, Side& side) {
  STimeRun run;
  RunSTime(arm, seconds, run);
  side.connections += run.connections;
  side.seconds += run.seconds();
}

// LoadOn: our client in a closed loop of one connection (the next starts when the previous
// ends, as s_time's loop does) for `seconds`, in the client namespace if any (a thread that
// entered it); nullopt if that namespace could not be entered.
std::optional<Result<LoadResult>> LoadOn(const Arm& arm, int seconds) {
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
  return r;
}

// LoadRound: per measured connection, actual start (socket()) → last response byte.
void LoadRound(const Arm& arm, int seconds, Side& side) {
  std::optional<Result<LoadResult>> r = LoadOn(arm, seconds);
  ASSERT_TRUE(r.has_value()) << "could not enter " << arm.client_netns;
  ASSERT_TRUE(r->ok()) << r->error().message;
  for (const ConnectionRecord& c : (*r)->connections) {
    if (!c.measured) continue;
    ASSERT_TRUE(c.ok()) << c.error_detail;
    ASSERT_EQ(c.group, kGroup);
    side.seconds +=
        static_cast<double>((*r)->requests[c.first_request].last_byte - c.actual_start) / 1e9;
    ++side.connections;
  }
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

// Within: our measured connections that started inside an s_time run, and the sum of their
// times (start → last byte, on our own timestamps).
Side Within(const LoadResult& r, const STimeRun& run) {
  Side side;
  for (const ConnectionRecord& c : r.connections) {
    if (!c.measured || c.actual_start < run.start || c.actual_start >= run.end) continue;
    side.seconds +=
        static_cast<double>(r.requests[c.first_request].last_byte - c.actual_start) / 1e9;
    ++side.connections;
  }
  return side;
}

struct SharedRatios {
  double cycle = 0;  // our time per connection / s_time's, over the same seconds
  double clock = 0;  // our recorded time per connection / the wall time per connection
};

// SharedRound: s_time and our load at the same time on the same arm, so both meet the same
// machine — sequential rounds did not (CI, 2026-12-05: s_time's slope 1.08 to 2.39 ms between
// rounds while our cycle stayed at 1.2–1.6 ms; ratios 0.56–1.44). Our load runs across a short
// and a long s_time run. Each run pays its start-up (exec, the CA, exit) once, a time when
// s_time makes no connection and ours has the server alone, so both sides are compared on the
// difference of the two runs: the extra connections each made in the extra seconds.
// `cycle` = (n_long − n_short) / (m_long − m_short) for s_time's n and our m; `clock` checks
// our own timestamps against the wall: in the long run, the sum of our connections' recorded
// times over its seconds (a closed loop of one leaves only teardown and the step to the next
// unrecorded).
std::optional<SharedRatios> SharedRound(const Arm& arm, const std::string& label) {
  std::optional<Result<LoadResult>> load;
  std::thread client([&] { load = LoadOn(arm, kShortSeconds + kLongSeconds + 4); });
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // past the load's warm-up
  STimeRun s_short, s_long;
  RunSTime(arm, kShortSeconds, s_short);
  if (!::testing::Test::HasFatalFailure()) RunSTime(arm, kLongSeconds, s_long);
  client.join();
  if (::testing::Test::HasFatalFailure()) return std::nullopt;
  EXPECT_TRUE(load.has_value()) << "could not enter " << arm.client_netns;
  if (!load) return std::nullopt;
  EXPECT_TRUE(load->ok()) << load->error().message;
  if (!load->ok()) return std::nullopt;
  const LoadResult& r = **load;
  Nanos last_end = 0;
  for (const ConnectionRecord& c : r.connections) {
    if (!c.measured) continue;
    EXPECT_TRUE(c.ok()) << c.error_detail;
    EXPECT_EQ(c.group, kGroup);
    last_end = std::max(last_end, r.requests[c.first_request].last_byte);
  }
  EXPECT_GE(last_end, s_long.end) << "our load ended before s_time's long run";
  const Side ours_short = Within(r, s_short), ours_long = Within(r, s_long);
  EXPECT_GT(s_long.connections, s_short.connections);
  EXPECT_GT(ours_long.connections, ours_short.connections);
  if (::testing::Test::HasFailure() || s_long.connections <= s_short.connections ||
      ours_long.connections <= ours_short.connections)
    return std::nullopt;
  const double extra_s = s_long.seconds() - s_short.seconds();
  const double s_time_us =
      extra_s * 1e6 / static_cast<double>(s_long.connections - s_short.connections);
  const double ours_us =
      extra_s * 1e6 / static_cast<double>(ours_long.connections - ours_short.connections);
  SharedRatios ratios{.cycle = ours_us / s_time_us, .clock = ours_long.seconds / s_long.seconds()};
  std::cout << label << ": s_time " << s_time_us << " us per connection (" << s_short.connections
            << " + " << s_long.connections << "), load " << ours_us << " us ("
            << ours_short.connections << " + " << ours_long.connections
            << ") over the same seconds: load/s_time = " << ratios.cycle << "; our recorded time "
            << ours_long.mean_us() << " us per connection, " << ratios.clock * 100
            << " % of the wall\n";
  ::testing::Test::RecordProperty("s_time_us_" + label, std::to_string(s_time_us));
  ::testing::Test::RecordProperty("load_us_" + label, std::to_string(ours_us));
  return ratios;
}

// OneCore: this process, and every thread and child it starts from now on, on the first core
// it may use, until destroyed. Two clients at the same time on two cores share them fairly
// only when nothing else runs: with one busy loop beside them, rounds gave load/s_time from
// 0.44 to 1.75 (whoever shared a core with it lost). On one core the scheduler shares it
// evenly between the two clients, each waiting on the same nginx worker: 0.93–0.99 per round
// with a busy loop on that same core or on the other, 0.93–1.03 without.
class OneCore {
 public:
  OneCore() {
    if (sched_getaffinity(0, sizeof before_, &before_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &before_)) {
        CPU_SET(cpu, &one);
        ok_ = sched_setaffinity(0, sizeof one, &one) == 0;
        return;
      }
    }
  }
  ~OneCore() {
    if (ok_) sched_setaffinity(0, sizeof before_, &before_);
  }
  OneCore(const OneCore&) = delete;
  OneCore& operator=(const OneCore&) = delete;
  bool ok() const { return ok_; }

 private:
  cpu_set_t before_{};
  bool ok_ = false;
};

// LoopbackRatios: the median of kRounds shared rounds, each ratio on its own.
std::optional<SharedRatios> LoopbackRatios(const Arm& arm, int attempt) {
  std::vector<double> cycles, clocks;
  for (int round = 0; round < kRounds; ++round) {
    const std::string label =
        "attempt_" + std::to_string(attempt) + "_round_" + std::to_string(round + 1);
    std::optional<SharedRatios> r = SharedRound(arm, label);
    if (!r) return std::nullopt;
    cycles.push_back(r->cycle);
    clocks.push_back(r->clock);
  }
  std::sort(cycles.begin(), cycles.end());
  std::sort(clocks.begin(), clocks.end());
  SharedRatios median{.cycle = cycles[cycles.size() / 2], .clock = clocks[clocks.size() / 2]};
  std::cout << "loopback, attempt " << attempt << ": median load/s_time = " << median.cycle
            << ", median recorded/wall = " << median.clock << "\n";
  return median;
}

// InRange: both ratios within their bars (not judged under ASan: unused there).
[[maybe_unused]] bool InRange(const SharedRatios& r) {
  return r.cycle >= kMinRatio && r.cycle <= kMaxRatio && r.clock >= kMinClock &&
         r.clock <= kMaxClock;
}

TEST(CrosscheckTest, LoadAgreesWithOpensslSTime) {
  OneCore pinned;  // before nginx starts: its workers, s_time and our load inherit it
  ASSERT_TRUE(pinned.ok()) << strerror(errno);
  Arm arm;
  ASSERT_NO_FATAL_FAILURE(StartArm(arm, nullptr));
  // A second measurement only when the first is out of range. A wrong clock unit, a missed
  // phase or a different handshake is out of range twice.
  std::optional<SharedRatios> ratios = LoopbackRatios(arm, 1);
#if !defined(__SANITIZE_ADDRESS__)
  if (ratios && !InRange(*ratios)) {
    std::cout << "out of range: measuring once more\n";
    ratios = LoopbackRatios(arm, 2);
  }
#endif
  StopArm(arm);
  ASSERT_TRUE(ratios.has_value());
  ::testing::Test::RecordProperty("ratio", std::to_string(ratios->cycle));
  ::testing::Test::RecordProperty("recorded_over_wall", std::to_string(ratios->clock));
#if defined(__SANITIZE_ADDRESS__)
  // Our client is instrumented (several times slower), s_time is not: no timing comparison,
  // only that both sides ran the same arm (checked above).
  GTEST_SKIP() << "timing not comparable in a sanitizer build (load/s_time " << ratios->cycle
               << ")";
#else
  EXPECT_GE(ratios->cycle, kMinRatio);
  EXPECT_LE(ratios->cycle, kMaxRatio);
  EXPECT_GE(ratios->clock, kMinClock);
  EXPECT_LE(ratios->clock, kMaxClock);
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
