// The emulated WAN end to end, as root: namespaces and TUN devices appear and vanish with the
// Link, the load client on a thread that entered the client namespace reaches the embedded
// server started in the server namespace, TCP connect costs one configured RTT, and a fresh
// TLS 1.3 handshake costs the round trips physics says (1 R; 2 R once the server's first
// flight overflows the initial window; +1 R for a HelloRetryRequest). A killed run's
// namespaces are removed by the next Create, and `pqc-bench link` exports the target and
// exits with its command's status.
//
// Timing tolerances: round trips are counted as round(p50 / R) at R = 50 ms, so a noisy
// two-core machine (ASan, parallel builds) has ±25 ms of slack; connect time is bounded
// below by the RTT (the mover is never early) and above by RTT + 5 ms.
#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <thread>

#include "client/load_runner.h"
#include "embedded_fixture.h"
#include "link/link.h"
#include "link/user_namespace.h"
#include "net/address.h"
#include "net/socket.h"
#include "records/summary.h"
#include "round_trips.h"
#include "server/embedded_server.h"
#include "test_paths.h"
#include "tls/cert_chain.h"

namespace pqc::link {
namespace {

constexpr Nanos kMs = 1'000'000;

bool Exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

std::vector<std::string> OurNamespaces(int pid) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(kNetnsDir, ec)) {
    const std::string name = e.path().filename().string();
    if (OwnerPid(name) == pid) out.push_back(name);
  }
  return out;
}

class LinkIntegrationTest : public ::testing::Test {
 public:  // the helpers below the fixture use its members too
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces, TUN devices)";
  }

  void MakeLink(Nanos rtt) {
    LinkProfile p;
    p.rtt = rtt;
    auto link = Link::Create(p);
    ASSERT_TRUE(link.ok()) << link.error().message;
    link_ = std::move(*link);
  }

  // StartServer: the embedded server, started by this thread while inside the server
  // namespace (its listener and event-loop threads stay there).
  void StartServer(const std::string& chain_text, const std::string& groups,
                   uint32_t max_early_data = 0, bool h2 = false) {
    chain_ = test::FreshChain(chain_text);
    ASSERT_TRUE(chain_);
    auto in = ScopedNetns::Enter(link_->server_netns_path());
    ASSERT_TRUE(in.ok()) << in.error().message;
    server_ = test::StartEmbedded(link_->server_address(8443), *chain_,
                                  {.groups = groups, .max_early_data = max_early_data, .h2 = h2});
    ASSERT_TRUE(server_);
  }

  void TearDown() override {
    test::StopEmbedded(server_);
    link_.reset();
  }

  LoadOptions Options(const std::vector<std::string>& groups) {
    LoadOptions o;
    o.target = server_->address();
    o.mix = {{ConnMode::kFresh, 1.0}};
    o.rate = 10;
    o.duration = 800 * kMs;
    o.warmup = 200 * kMs;
    o.tls.groups = groups;
    o.tls.trust_anchors = {chain_->root().cert.get()};
    o.timeout = 5'000 * kMs;
    o.max_inflight = 100;
    o.max_lag_p99 = 10'000 * kMs;  // not a schedule test
    o.max_cpu_share = 10;
    return o;
  }

  // RunInClientNetns: RunLoad on a thread that entered the client namespace (of `site`).
  LoadResult RunInClientNetns(const LoadOptions& o, size_t site = 0) {
    std::optional<Result<LoadResult>> r;
    std::string enter_error;
    std::thread client([&] {
      auto in = ScopedNetns::Enter(link_->client_netns_path(site));
      if (!in) {
        enter_error = in.error().message;
        return;
      }
      r.emplace(RunLoad(o, nullptr));
    });
    client.join();
    EXPECT_EQ(enter_error, "");
    if (!r || !r->ok()) {
      ADD_FAILURE() << (r ? r->error().message : "no result");
      return {};
    }
    return std::move(**r);
  }

  struct Phases {
    double connect_ms, handshake_ms;
    double segments;  // the server's flight(s) in TCP segments, as the client received them
    size_t count;
    bool hrr;
  };
  // MeasuredPhases: p50 of connect and handshake over the measured connections, all of which
  // must have succeeded.
  static Phases MeasuredPhases(const LoadResult& r) {
    std::vector<double> connect, handshake, segments;
    bool hrr = true;
    for (const ConnectionRecord& c : r.connections) {
      if (!c.measured) continue;
      EXPECT_TRUE(c.ok()) << ErrorClassName(c.error) << ": " << c.error_detail;
      if (!c.ok()) continue;
      connect.push_back(static_cast<double>(c.tcp_established - c.actual_start) / 1e6);
      handshake.push_back(static_cast<double>(c.tls_done - c.tcp_established) / 1e6);
      segments.push_back(c.handshake_segments_read);
      hrr = hrr && c.hrr;
    }
    auto median = [](std::vector<double> v) {
      if (v.empty()) return 0.0;
      std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    return {median(connect), median(handshake), median(segments), connect.size(), hrr};
  }

  std::unique_ptr<Link> link_;
  std::unique_ptr<CertChain> chain_;
  std::unique_ptr<EmbeddedServer> server_;
};

TEST_F(LinkIntegrationTest, NamespacesAndDevicesVanishWithTheLink) {
  MakeLink(2 * kMs);
  const std::string server_ns = link_->server_netns_path();
  const std::string client_ns = link_->client_netns_path();
  ASSERT_TRUE(Exists(server_ns));
  ASSERT_TRUE(Exists(client_ns));
  EXPECT_NE(server_ns, client_ns);
  EXPECT_NE(server_ns.find(std::to_string(getpid())), std::string::npos);
  // Keep a handle on the server namespace to look inside after the Link is gone.
  ScopedFd held(open(server_ns.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(held.valid());
  {
    std::thread look([&] {
      auto in = ScopedNetns::Enter(server_ns);
      ASSERT_TRUE(in.ok());
      EXPECT_NE(if_nametoindex("pqc0"), 0u);
      EXPECT_NE(if_nametoindex("lo"), 0u);
    });
    look.join();
  }
  link_.reset();
  EXPECT_FALSE(Exists(server_ns));
  EXPECT_FALSE(Exists(client_ns));
  EXPECT_TRUE(OurNamespaces(getpid()).empty());
  std::thread look([&] {
    auto in = ScopedNetns::Enter("/proc/self/fd/" + std::to_string(held.get()));
    ASSERT_TRUE(in.ok()) << in.error().message;
    EXPECT_EQ(if_nametoindex("pqc0"), 0u) << "the TUN device outlived the Link";
  });
  look.join();
}

// Several client sites on one server: each site its own namespace, address and wire, the
// server one address for all of them; each site's connect costs its own RTT while the other
// sites' wires carry traffic of their own.
TEST_F(LinkIntegrationTest, EachSiteConnectsAtItsOwnRtt) {
  std::vector<LinkSite> sites;
  for (Nanos rtt : {50 * kMs, 80 * kMs, 120 * kMs}) {
    LinkProfile p;
    p.rtt = rtt;
    sites.push_back({fmt::format("rtt{}", rtt / kMs), p});
  }
  auto link = Link::Create(sites);
  ASSERT_TRUE(link.ok()) << link.error().message;
  link_ = std::move(*link);
  ASSERT_EQ(link_->sites().size(), 3u);
  EXPECT_EQ(link_->client_ip(0), "198.18.0.2");
  EXPECT_EQ(link_->client_ip(2), "198.18.2.2");
  std::set<std::string> paths = {link_->server_netns_path()};
  for (size_t k = 0; k < 3; ++k) paths.insert(link_->client_netns_path(k));
  EXPECT_EQ(paths.size(), 4u) << "one namespace per site and one for the server";
  EXPECT_EQ(OurNamespaces(getpid()).size(), 4u);
  StartServer("ecdsa-p256", "X25519");
  // Every site at once, as a trial loads them.
  std::vector<LoadResult> results(3);
  std::vector<std::thread> clients;
  for (size_t k = 0; k < 3; ++k) {
    clients.emplace_back([&, k] { results[k] = RunInClientNetns(Options({"X25519"}), k); });
  }
  for (std::thread& t : clients) t.join();
  for (size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(sites[k].name);
    const double rtt_ms = static_cast<double>(sites[k].profile.rtt) / 1e6;
    Phases p = MeasuredPhases(results[k]);
    ASSERT_GE(p.count, 5u);
    EXPECT_GE(p.connect_ms, rtt_ms);
    EXPECT_LE(p.connect_ms, rtt_ms + 5);
    EXPECT_EQ(test::WholeRoundTrips(p.handshake_ms, rtt_ms), 1) << p.handshake_ms;
    const MoverStats site = link_->site_stats(k);
    EXPECT_GT(site.packets, 0u);
  }
  // The sites' counters add up to the whole link's, once the wires are quiet: read while a
  // connection's last ACK was crossing, they differed by that packet (544 vs 545 in CI).
  server_->Stop();
  server_->Wait();
  server_.reset();
  uint64_t packets = 0, whole = 0;
  for (int i = 0; i < 40; ++i) {
    packets = 0;
    for (size_t k = 0; k < 3; ++k) packets += link_->site_stats(k).packets;
    whole = link_->stats().packets;
    if (packets == whole) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(packets, whole);
  link_.reset();
  EXPECT_TRUE(OurNamespaces(getpid()).empty());
}

TEST_F(LinkIntegrationTest, ScopedNetnsReturnsTheThreadToItsNamespace) {
  MakeLink(0);
  auto ino = [] {
    struct stat st {};
    stat("/proc/thread-self/ns/net", &st);
    return st.st_ino;
  };
  const auto before = ino();
  {
    auto in = ScopedNetns::Enter(link_->client_netns_path());
    ASSERT_TRUE(in.ok());
    EXPECT_NE(ino(), before);
  }
  EXPECT_EQ(ino(), before);
  auto bad = ScopedNetns::Enter("/nonexistent/netns");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("/nonexistent/netns"), std::string::npos);
}

TEST_F(LinkIntegrationTest, ConnectTakesOneRttAt10And70Ms) {
  for (Nanos rtt : {10 * kMs, 70 * kMs}) {
    SCOPED_TRACE(rtt / kMs);
    MakeLink(rtt);
    StartServer("ecdsa-p256", "X25519");
    LoadResult r = RunInClientNetns(Options({"X25519"}));
    Phases p = MeasuredPhases(r);
    ASSERT_GE(p.count, 5u);
    const double r_ms = static_cast<double>(rtt) / 1e6;
    std::printf("  rtt %.0f ms: connect p50 %.3f ms (%zu connections)\n", r_ms, p.connect_ms,
                p.count);
    EXPECT_GE(p.connect_ms, r_ms);        // the mover is never early
    EXPECT_LE(p.connect_ms, r_ms + 5.0);  // generous: two shared cores
    MoverStats s = link_->stats();
    EXPECT_GT(s.packets, 10 * p.count);
    EXPECT_EQ(s.dropped_loss + s.dropped_queue + s.write_errors, 0u);
    EXPECT_LT(s.release_error_p50_us, 1000.0);
    TearDown();
  }
}

// WireRoundTrips: in the client namespace, `count` TCP connects to the server; for each, the
// kernel's timestamps (a packet socket on the client's device) of the SYN leaving and the
// SYN-ACK arriving. Their difference is what the emulated wire added plus the server kernel's
// answer, free of either program's own scheduling; returns those differences in ms.
std::vector<double> WireRoundTrips(const std::string& netns, const SocketAddress& server,
                                   int count) {
  std::vector<double> out;
  std::thread t([&] {
    auto in = ScopedNetns::Enter(netns);
    ASSERT_TRUE(in.ok()) << in.error().message;
    ScopedFd tap(socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ALL)));
    ASSERT_TRUE(tap.valid()) << std::strerror(errno);
    const int on = 1;
    ASSERT_EQ(setsockopt(tap.get(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on), 0);
    sockaddr_ll ll{};
    ll.sll_family = AF_PACKET;
    ll.sll_protocol = htons(ETH_P_ALL);
    ll.sll_ifindex = static_cast<int>(if_nametoindex("pqc0"));
    ASSERT_EQ(bind(tap.get(), reinterpret_cast<sockaddr*>(&ll), sizeof ll), 0);
    for (int i = 0; i < count; ++i) {
      ScopedFd c(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
      ASSERT_EQ(connect(c.get(), server.sa(), server.len), 0) << std::strerror(errno);
      Nanos syn = 0, synack = 0;
      // Both packets are queued on the tap by the time connect() returned.
      while (syn == 0 || synack == 0) {
        char buf[2048];
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
        iovec iov{buf, sizeof buf};
        msghdr m{};
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = control;
        m.msg_controllen = sizeof control;
        const ssize_t n = recvmsg(tap.get(), &m, MSG_DONTWAIT);
        ASSERT_GE(n, 40) << "SYN or SYN-ACK missing on the tap";
        const cmsghdr* cm = CMSG_FIRSTHDR(&m);
        ASSERT_NE(cm, nullptr);
        timespec ts{};
        std::memcpy(&ts, CMSG_DATA(cm), sizeof ts);
        const Nanos at = static_cast<Nanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
        const size_t ihl = static_cast<size_t>(buf[0] & 0x0f) * 4;
        if (buf[9] != IPPROTO_TCP) continue;
        const uint8_t flags = static_cast<uint8_t>(buf[ihl + 13]) & 0x12;  // SYN, ACK
        if (flags == 0x02) syn = at;
        if (flags == 0x12) synack = at;
      }
      out.push_back(static_cast<double>(synack - syn) / 1e6);
      // Drain the rest of this connection (its ACK, later the FIN exchange) before the next.
      c.reset();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      char drain[2048];
      while (recv(tap.get(), drain, sizeof drain, MSG_DONTWAIT) > 0) {
      }
    }
  });
  t.join();
  return out;
}

// AccuracyLimitMs: the target for a p50 at RTT r, max(2 %, 0.2 ms). An instrumented
// (sanitizer) mover and client run several times slower: there, only gross errors.
double AccuracyLimitMs(double r_ms) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return std::max(0.1 * r_ms, 1.0);
#else
  return std::max(0.02 * r_ms, 0.2);
#endif
}

// The accuracy target of the emulated wire: p50 of the round trip a SYN sees within
// max(2 %, 0.2 ms) of the configured RTT. Measured at the wire (above), free of either
// program's scheduling; the client's own connect time is the next test.
TEST_F(LinkIntegrationTest, WireRoundTripIsTheRttWithinTwoPercentOr200us) {
  for (Nanos rtt : {1 * kMs, 10 * kMs, 70 * kMs}) {
    SCOPED_TRACE(rtt / kMs);
    MakeLink(rtt);
    StartServer("ecdsa-p256", "X25519");
    const double r_ms = static_cast<double>(rtt) / 1e6;
    const double limit = AccuracyLimitMs(r_ms);
    // A second sample only if the first misses: another job's burst on these two shared
    // cores can delay the mover for a few ms, and the median of 30 is not immune to that.
    double p50 = 0, first = 0;
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::vector<double> rt =
          WireRoundTrips(link_->client_netns_path(), server_->address(), rtt >= 70 * kMs ? 8 : 30);
      ASSERT_FALSE(rt.empty());
      std::sort(rt.begin(), rt.end());
      p50 = rt[rt.size() / 2];
      first = rt.front();
      std::printf("  rtt %.0f ms: SYN to SYN-ACK at the client's device p50 %.3f ms (%zu)\n", r_ms,
                  p50, rt.size());
      if (p50 - r_ms <= limit) break;
    }
    EXPECT_GE(first, r_ms);  // never early
    EXPECT_LE(p50 - r_ms, limit);
    EXPECT_TRUE(link_->stats().kernel_timestamps);
    EXPECT_EQ(link_->stats().dropped_ingress, 0u);
    TearDown();
  }
}

// What the client itself measures: connect p50 (socket() → connected) against the RTT. The
// client busy-polls (LoadOptions::busy_poll): a sleeping thread's wake-up on the SYN-ACK costs
// 0.1–0.3 ms on this kind of virtual machine. What remains is the wire (above) and the
// connect() call, which on this guest pays ~40 µs for the tap's wake-up of the mover (46 µs vs
// 9 µs on a bare TUN device). Measured here at 1 ms: 1.13–1.18 ms in most runs and 1.22–1.26 ms
// in some (the threads' placement on the two vCPUs: with all on one CPU, always 1.13–1.18), so
// the 0.2 ms is held by the wire test and this one allows 0.3 ms, which still catches
// any wake-up or release-time regression of the client or the mover.
TEST_F(LinkIntegrationTest, BusyPollingClientMeasuresConnectWithinTwoPercentOr300usOfTheRtt) {
  for (Nanos rtt : {1 * kMs, 10 * kMs, 70 * kMs}) {
    SCOPED_TRACE(rtt / kMs);
    MakeLink(rtt);
    StartServer("ecdsa-p256", "X25519");
    const double r_ms = static_cast<double>(rtt) / 1e6;
    const double limit = std::max(AccuracyLimitMs(r_ms), 0.3);
    LoadOptions o = Options({"X25519"});
    o.busy_poll = true;
    o.rate = 40;
    o.duration = 1'500 * kMs;
    // As above, more samples only on a miss, and the best of them counts: the spinning client,
    // the mover and the server are three threads on two vCPUs, and on a host that steals time
    // (a VM with 33 % stolen at times measured 0.4-0.8 ms over at 1 ms in 4 of 7 samples, 0.25
    // ms in the rest) a sample is lost to placement; a regression misses every time.
    Phases p{};
    for (int attempt = 0; attempt < 3; ++attempt) {
      const Phases sample = MeasuredPhases(RunInClientNetns(o));
      ASSERT_GE(sample.count, 40u);
      std::printf("  rtt %.0f ms: busy-polling client's connect p50 %.3f ms (%zu)\n", r_ms,
                  sample.connect_ms, sample.count);
      if (attempt == 0 || sample.connect_ms < p.connect_ms) p = sample;
      if (p.connect_ms - r_ms <= limit) break;
    }
    EXPECT_GE(p.connect_ms, r_ms);
    EXPECT_LE(p.connect_ms - r_ms, limit);
    TearDown();
  }
}

// Jitter: ±4 ms per direction around 20 ms of RTT spreads the wire round trip over [12, 28]
// ms; without `reorder` the mover never lets a packet overtake the one ahead of it.
TEST_F(LinkIntegrationTest, JitterSpreadsTheRoundTripWithinItsBounds) {
  LinkProfile p;
  p.rtt = 20 * kMs;
  p.jitter = 4 * kMs;
  auto link = Link::Create(p);
  ASSERT_TRUE(link.ok()) << link.error().message;
  link_ = std::move(*link);
  StartServer("ecdsa-p256", "X25519");
  std::vector<double> rt = WireRoundTrips(link_->client_netns_path(), server_->address(), 30);
  ASSERT_EQ(rt.size(), 30u);
  std::sort(rt.begin(), rt.end());
  std::printf("  rtt 20 ms ± 4 ms per direction: min %.2f p10 %.2f p50 %.2f p90 %.2f max %.2f ms\n",
              rt.front(), rt[3], rt[15], rt[27], rt.back());
  EXPECT_GE(rt.front(), 12.0);
  // p90, not the max: on a shared machine one release in 30 may be late by a time slice.
  EXPECT_LE(rt[27], 28.0 + 1.0);
  // Uniform over 16 ms: the middle 80 % of 30 draws spans well over 4 ms (p < 1e-6 below).
  EXPECT_GT(rt[27] - rt[3], 4.0);
}

// LossyLoad: fresh connections at 20/s across a lossy 4 ms link. TCP retransmits, so nearly
// every connection succeeds (one whose SYN is lost twice may hit the 5 s timeout, which is
// the link behaving as configured); losses happen and none is the queue's.
void CheckLossyLoad(LinkIntegrationTest& t, LinkProfile p) {
  p.rtt = 4 * kMs;
  auto link = Link::Create(p);
  ASSERT_TRUE(link.ok()) << link.error().message;
  t.link_ = std::move(*link);
  t.StartServer("ecdsa-p256", "X25519");
  LoadOptions o = t.Options({"X25519"});
  o.rate = 20;
  LoadResult r = t.RunInClientNetns(o);
  size_t measured = 0, ok = 0;
  for (const ConnectionRecord& c : r.connections) {
    measured += c.measured ? 1 : 0;
    ok += c.measured && c.ok() ? 1 : 0;
  }
  EXPECT_GE(measured, 10u);
  EXPECT_GE(ok * 10, measured * 8);
  MoverStats s = t.link_->stats();
  EXPECT_GT(s.dropped_loss, 0u);
  EXPECT_EQ(s.dropped_queue, 0u);
}

// Burst loss (Gilbert–Elliott: 5 % good→bad, 50 % bad→good, everything lost while bad):
// stationary loss 0.05 / 0.55 ≈ 9 % of ~300 packets, so 0 losses has p < 1e-9.
TEST_F(LinkIntegrationTest, BurstLossDropsPacketsAndTcpRecovers) {
  LinkProfile p;
  p.ge_p = 0.05;
  p.ge_r = 0.5;
  p.ge_loss_bad = 1.0;
  CheckLossyLoad(*this, p);
}

// Random loss 5 %: ~20 connections × ~15 packets, about 15 losses expected; 0 has p < 1e-5.
TEST_F(LinkIntegrationTest, LossDropsPacketsAndTcpRecovers) {
  LinkProfile p;
  p.loss = 0.05;
  CheckLossyLoad(*this, p);
}

TEST_F(LinkIntegrationTest, RateLimitBoundsTheTransferTime) {
  LinkProfile p;
  p.rtt = 2 * kMs;
  p.rate_bps = 8'000'000;  // 1 MB/s
  auto link = Link::Create(p);
  ASSERT_TRUE(link.ok()) << link.error().message;
  link_ = std::move(*link);
  StartServer("ecdsa-p256", "X25519");
  LoadOptions o = Options({"X25519"});
  o.mix = {{ConnMode::kReuse, 1.0}};
  o.mode_text = "reuse";
  o.rate = 2;
  o.duration = 1'000 * kMs;
  o.path = "/payload/200K";
  LoadResult r = RunInClientNetns(o);
  size_t checked = 0;
  for (const ConnectionRecord& c : r.connections) {
    if (!c.measured || !c.ok()) continue;
    const RequestRecord& q = r.requests[c.first_request];
    ASSERT_EQ(q.body_bytes, 200u * 1024);
    const double seconds = static_cast<double>(q.last_byte - q.sent) / 1e9;
    // Serialisation alone takes 204,800 B x 8 / 8 Mbit/s = 0.205 s: the link cannot be faster.
    EXPECT_GE(seconds, 0.2048);
    EXPECT_LE(seconds, 1.0);  // and it is not far slower (slow start at 2 ms RTT is short)
    ++checked;
  }
  EXPECT_GE(checked, 1u);
  EXPECT_EQ(link_->stats().dropped_loss, 0u);
}

// Physics of a fresh TLS 1.3 handshake at R = 50 ms: round trips = round(handshake / R).
struct PhysicsCase {
  const char* name;
  const char* chain;
  const char* server_groups;
  std::vector<std::string> client_groups;
  std::vector<std::string> key_shares;
  long round_trips;
  bool hrr;
};

// PrintTo: CTest's test names then show the case's name, not the struct's raw bytes.
void PrintTo(const PhysicsCase& c, std::ostream* os) {
  *os << c.name;
}

class LinkPhysicsTest : public LinkIntegrationTest,
                        public ::testing::WithParamInterface<PhysicsCase> {};

TEST_P(LinkPhysicsTest, HandshakeRoundTrips) {
  const PhysicsCase& c = GetParam();
  constexpr Nanos kRtt = 50 * kMs;
  MakeLink(kRtt);
  StartServer(c.chain, c.server_groups);
  LoadOptions o = Options(c.client_groups);
  o.tls.key_shares = c.key_shares;
  LoadResult r = RunInClientNetns(o);
  Phases p = MeasuredPhases(r);
  ASSERT_GE(p.count, 5u);
  EXPECT_EQ(p.hrr, c.hrr);
  std::printf(
      "  %s at R 50 ms: connect p50 %.2f ms, handshake p50 %.2f ms, %.0f segments from the "
      "server (%zu connections)\n",
      c.name, p.connect_ms, p.handshake_ms, p.segments, p.count);
  EXPECT_EQ(test::WholeRoundTrips(p.connect_ms, 50.0), 1) << p.connect_ms << " ms";
  EXPECT_EQ(test::WholeRoundTrips(p.handshake_ms, 50.0), c.round_trips) << p.handshake_ms << " ms";
  // The cause: more segments than the 10-segment initial window (the HelloRetryRequest's
  // extra round trip is the client's second ClientHello instead).
  if (!c.hrr) {
    EXPECT_EQ(p.segments > 10, c.round_trips == 2) << p.segments << " segments";
  }
}

// FirstByteMs: p50 over the measured connections of the first response byte, from the
// connection's start (its socket), in ms; every connection must have succeeded.
double FirstByteMs(const LoadResult& r) {
  std::vector<double> v;
  for (const ConnectionRecord& c : r.connections) {
    if (!c.measured) continue;
    EXPECT_TRUE(c.ok()) << ErrorClassName(c.error) << ": " << c.error_detail;
    if (!c.ok() || c.request_count == 0) continue;
    v.push_back(static_cast<double>(r.requests[c.first_request].first_byte - c.actual_start) / 1e6);
  }
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// 0-RTT saves the request's round trip: the first response byte arrives about 2 R after the
// start (TCP, then ClientHello with the request, answered with the server's flight) against
// about 3 R for a plain resumption (TCP, handshake, then request and response) — over
// HTTP/1.1 and over HTTP/2, whose early bytes (preface, SETTINGS, the request's HEADERS) the
// embedded server answers as 0.5-RTT data too.
TEST_F(LinkIntegrationTest, EarlyDataSavesTheRequestsRoundTrip) {
  constexpr Nanos kRtt = 40 * kMs;
  MakeLink(kRtt);
  StartServer("ecdsa-p256", "X25519MLKEM768", kEarlyDataBytes, /*h2=*/true);
  for (Protocol protocol : {Protocol::kH1, Protocol::kH2}) {
    SCOPED_TRACE(ProtocolName(protocol));
    LoadOptions o = Options({"X25519MLKEM768"});
    o.protocol = protocol;
    o.warmup = 400 * kMs;  // tickets for the first measured connections
    o.mix = {{ConnMode::kResume, 1.0}};
    const LoadResult resumed = RunInClientNetns(o);
    o.mix = {{ConnMode::kEarly, 1.0}};
    const LoadResult early = RunInClientNetns(o);
    size_t accepted = 0, measured = 0;
    for (const ConnectionRecord& c : early.connections) {
      if (!c.measured) continue;
      ++measured;
      accepted += c.early_data == EarlyData::kAccepted ? 1 : 0;
      EXPECT_EQ(c.protocol, protocol);
    }
    ASSERT_GE(measured, 5u);
    EXPECT_EQ(accepted, measured);
    const double resume_ms = FirstByteMs(resumed), early_ms = FirstByteMs(early);
    std::printf("  %s at R 40 ms: first byte p50 %.2f ms resumed, %.2f ms with early data\n",
                std::string(ProtocolName(protocol)).c_str(), resume_ms, early_ms);
    EXPECT_EQ(test::WholeRoundTrips(resume_ms, 40.0), 3) << resume_ms << " ms";
    EXPECT_EQ(test::WholeRoundTrips(early_ms, 40.0), 2) << early_ms << " ms";
  }
}

// Concurrent HTTP/2 streams: a connection's four requests sent side by side are all answered
// about 1 R after the handshake, against 4 R one after another — the page-load case HTTP/2
// exists for, and what `streams` measures.
TEST_F(LinkIntegrationTest, ConcurrentStreamsShareOneRoundTrip) {
  constexpr Nanos kRtt = 40 * kMs;
  constexpr uint32_t kRequests = 4;
  MakeLink(kRtt);
  StartServer("ecdsa-p256", "X25519MLKEM768", 0, /*h2=*/true);
  for (uint32_t streams : {kRequests, 1u}) {
    SCOPED_TRACE(streams);
    LoadOptions o = Options({"X25519MLKEM768"});
    o.protocol = Protocol::kH2;
    o.requests = kRequests;
    o.streams = streams;
    const LoadResult r = RunInClientNetns(o);
    std::vector<double> after_handshake_ms;
    for (const ConnectionRecord& c : r.connections) {
      if (!c.measured) continue;
      EXPECT_TRUE(c.ok()) << ErrorClassName(c.error) << ": " << c.error_detail;
      if (!c.ok()) continue;
      ASSERT_EQ(c.request_count, kRequests);
      const RequestRecord* req = &r.requests[c.first_request];
      Nanos last = 0;
      for (uint32_t i = 0; i < kRequests; ++i) {
        EXPECT_EQ(req[i].status, 200u);
        EXPECT_GT(req[i].first_byte, 0);
        last = std::max(last, req[i].last_byte);
        // Side by side, every request leaves at once; one at a time, each after the last.
        if (i == 0) continue;
        if (streams == kRequests) {
          EXPECT_EQ(req[i].sent, req[0].sent);
        } else {
          EXPECT_GE(req[i].sent, req[i - 1].last_byte);
        }
      }
      after_handshake_ms.push_back(static_cast<double>(last - c.tls_done) / 1e6);
    }
    ASSERT_GE(after_handshake_ms.size(), 5u);
    std::nth_element(after_handshake_ms.begin(),
                     after_handshake_ms.begin() + static_cast<long>(after_handshake_ms.size() / 2),
                     after_handshake_ms.end());
    const double p50 = after_handshake_ms[after_handshake_ms.size() / 2];
    std::printf(
        "  %u requests on %u stream(s) at R 40 ms: last response p50 %.2f ms after the "
        "handshake\n",
        kRequests, streams, p50);
    EXPECT_EQ(test::WholeRoundTrips(p50, 40.0), streams == 1 ? kRequests : 1) << p50 << " ms";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Tls13, LinkPhysicsTest,
    ::testing::Values(
        // First flight fits the 10-segment initial window: one round trip.
        PhysicsCase{"ecdsa", "ecdsa-p256", "X25519", {"X25519"}, {}, 1, false},
        PhysicsCase{"mldsa65", "ml-dsa-65", "X25519MLKEM768", {"X25519MLKEM768"}, {}, 1, false},
        // Certificate + CertificateVerify of three ML-DSA-87 certificates overflow it.
        PhysicsCase{"mldsa87chain",
                    "ml-dsa-87/ml-dsa-87/ml-dsa-87",
                    "X25519MLKEM768",
                    {"X25519MLKEM768"},
                    {},
                    2,
                    false},
        // The server insists on the hybrid; the client only sent an X25519 share.
        PhysicsCase{"hrr",
                    "ecdsa-p256",
                    "X25519MLKEM768/X25519",
                    {"X25519MLKEM768", "X25519"},
                    {"X25519"},
                    2,
                    true}),
    [](const ::testing::TestParamInfo<PhysicsCase>& p) { return p.param.name; });

// RunLinkCli: `pqc-bench link ARGS`, stdout captured; returns the exit status.
int RunLinkCli(const std::string& args, std::string* out) {
  const std::string cmd = std::string(PQC_BENCH_BIN) + " link " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out->append(buf, n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(LinkIntegrationTest, CliExportsTheTargetAndExitsWithTheCommandsStatus) {
  std::string out;
  int rc = RunLinkCli(
      "--rtt 20ms -- sh -c 'echo target=$PQC_TARGET; test -s \"$PQC_CA\" && echo ca=ok; "
      "nsenter --net=$PQC_SERVER_NETNS ip -brief addr show pqc0; "
      "test \"$(readlink /proc/self/ns/net)\" = \"$(nsenter --net=$PQC_CLIENT_NETNS "
      "readlink /proc/self/ns/net)\" && echo client-netns=ok; exit 7'",
      &out);
  EXPECT_EQ(rc, 7);
  EXPECT_NE(out.find("target=198.18.0.1:8443"), std::string::npos) << out;
  EXPECT_NE(out.find("ca=ok"), std::string::npos) << out;
  EXPECT_NE(out.find("198.18.0.1/15"), std::string::npos) << out;  // the server side's pqc0
  EXPECT_NE(out.find("client-netns=ok"), std::string::npos) << out;
}

TEST_F(LinkIntegrationTest, CliRunsLoadAgainstServeAcrossTheLink) {
  std::string out;
  int rc = RunLinkCli(
      "--rtt 30ms --server='--cert ecdsa-p256 --groups X25519' -- sh -c '" +
          std::string(PQC_BENCH_BIN) +
          " load --target $PQC_TARGET --ca $PQC_CA --groups X25519 --rate 10 --duration 1s "
          "--warmup 200ms --max-lag-p99 10s --json /dev/stdout >/dev/null 2>&1; echo load=$?'",
      &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("load=0"), std::string::npos) << out;
}

TEST_F(LinkIntegrationTest, KilledRunsNamespacesAreRemovedByTheNextCreate) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);
    execl(PQC_BENCH_BIN, PQC_BENCH_BIN, "link", "--rtt", "1ms", "--no-server", "--", "sleep", "30",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  // Wait (bounded) until the run has made its namespaces.
  for (int i = 0; i < 200 && OurNamespaces(pid).size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_EQ(OurNamespaces(pid).size(), 2u);
  kill(-pid, SIGKILL);  // the run and its command: nothing gets to clean up
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_EQ(OurNamespaces(pid).size(), 2u);  // left behind, as after a crash
  MakeLink(0);
  EXPECT_TRUE(OurNamespaces(pid).empty());
}

// Without root: a forked child drops to uid/gid 65534 and takes the documented way, an
// unprivileged user namespace. `tun_for_all` first gives the child (in a mount namespace of
// its own, as root) a /dev/net/tun node that anyone may open, as a machine that grants it
// would; without it, the machine's node (root only here) stands. The child writes "ok ..." or
// the error it got to `out`.
std::string LinkAsNobody(bool tun_for_all) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    auto say = [&](const std::string& text) {
      ssize_t ignored = write(fds[1], text.data(), text.size());
      (void)ignored;
      _exit(0);
    };
    if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr)) {
      say(std::string("setup: private mounts: ") + std::strerror(errno));
    }
    if (tun_for_all) {
      char dir[] = "/tmp/pqc-tun-XXXXXX";
      if (mkdtemp(dir) == nullptr || mount("tmpfs", dir, "tmpfs", 0, "mode=0755") != 0) {
        say(std::string("setup: tmpfs: ") + std::strerror(errno));
      }
      const std::string node = std::string(dir) + "/tun";
      if (mknod(node.c_str(), S_IFCHR | 0666, makedev(10, 200)) != 0 ||
          chmod(node.c_str(), 0666) != 0 ||
          mount(node.c_str(), "/dev/net/tun", nullptr, MS_BIND, nullptr) != 0) {
        say(std::string("setup: a tun node for everyone: ") + std::strerror(errno));
      }
    }
    if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
        setresuid(65534, 65534, 65534) != 0) {
      say(std::string("setup: drop to nobody: ") + std::strerror(errno));
    }
    // Changing credentials made this process non-dumpable, which makes its /proc/self files
    // root's; a user's own process is dumpable and may write its id maps.
    prctl(PR_SET_DUMPABLE, 1);
    if (Status st = EnterUnprivilegedUserNamespace(); !st) say(st.error().message);
    LinkProfile p;
    p.rtt = 20 * kMs;
    auto link = Link::Create(p);
    if (!link) say(link.error().message);
    // A TCP connection across it: one RTT, so the mover ran (whichever input it had).
    std::string result;
    std::thread t([&] {
      auto srv_ns = ScopedNetns::Enter((*link)->server_netns_path());
      if (!srv_ns) return void(result = srv_ns.error().message);
      const SocketAddress addr = ServerAddress(9000);
      auto listener = ListenTcp(addr, 4, false);
      if (!listener) return void(result = listener.error().message);
      auto cli_ns = ScopedNetns::Enter((*link)->client_netns_path());
      if (!cli_ns) return void(result = cli_ns.error().message);
      ScopedFd c(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
      const Nanos t0 = MonotonicNow();
      if (connect(c.get(), addr.sa(), addr.len) != 0) {
        return void(result = std::string("connect: ") + std::strerror(errno));
      }
      const double ms = static_cast<double>(MonotonicNow() - t0) / 1e6;
      result = fmt::format("ok connect {:.1f} ms, kernel timestamps {}", ms,
                           (*link)->stats().kernel_timestamps);
    });
    t.join();
    say(result);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

TEST_F(LinkIntegrationTest, WithoutRootAndWithoutTunAccessTheErrorSaysWhatIsMissing) {
  struct stat st {};
  if (stat("/dev/net/tun", &st) == 0 && (st.st_mode & 0006) == 0006) {
    GTEST_SKIP() << "this machine's /dev/net/tun is open to everyone";
  }
  const std::string out = LinkAsNobody(false);
  EXPECT_NE(out.find("/dev/net/tun"), std::string::npos) << out;
  EXPECT_NE(out.find("needs root"), std::string::npos) << out;
}

TEST_F(LinkIntegrationTest, WithoutRootAUserNamespaceCarriesTheLink) {
  const std::string out = LinkAsNobody(true);
  if (out.find("user namespace could not be used") != std::string::npos) {
    // The machine refuses unprivileged user namespaces: then the message must say how.
    EXPECT_NE(out.find("max_user_namespaces"), std::string::npos) << out;
    GTEST_SKIP() << "unprivileged user namespaces are off here: " << out;
  }
  ASSERT_EQ(out.rfind("ok ", 0), 0u) << out;
  std::printf("  as nobody in a user namespace: %s\n", out.c_str());
  double ms = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "ok connect %lf ms", &ms), 1) << out;
  EXPECT_GE(ms, 20.0);
  EXPECT_LE(ms, 200.0);  // generous: two shared cores
}

}  // namespace
}  // namespace pqc::link
