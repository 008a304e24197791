// The load generator against the embedded server, both real, on 127.0.0.1: each mode
// negotiates what it claims, HelloRetryRequest is seen, mismatches and saturation invalidate
// the result, phases are ordered, and the CLI's JSON has the documented shape.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "client/load_runner.h"
#include "records/summary.h"
#include "core/cpu_affinity.h"
#include "embedded_fixture.h"
#include "measured.h"
#include "server/embedded_server.h"
#include "tls/cert_chain.h"
#include "test_paths.h"

namespace pqc {
namespace {

class LoadTest : public ::testing::Test {
 protected:
  // StartServer: an embedded server on an ephemeral port with a fresh chain.
  void StartServer(const std::string& chain_text, const std::string& groups, bool tickets = true,
                   uint32_t max_early_data = 0) {
    chain_ = test::FreshChain(chain_text);
    ASSERT_TRUE(chain_);
    server_ = test::StartEmbedded(
        ParseAddress("127.0.0.1:0").value(), *chain_,
        {.groups = groups, .tickets = tickets, .max_early_data = max_early_data});
    ASSERT_TRUE(server_);
  }

  void TearDown() override { test::StopEmbedded(server_); }

  LoadOptions Options(const std::vector<std::string>& groups, ConnMode mode) {
    LoadOptions o;
    o.target = server_->address();
    o.mix = {{mode, 1.0}};
    o.mode_text = std::string(ConnModeName(mode));
    o.rate = 100;
    o.duration = 1'000'000'000;
    o.warmup = 200'000'000;
    o.tls.groups = groups;
    o.tls.trust_anchors = {chain_->root().cert.get()};
    o.expect_group = groups.front();
    o.timeout = 5'000'000'000;
    o.max_inflight = 1'000;  // the tests' rates never need more; fits any fd limit
    // These tests check negotiation, not the schedule: server, client and a parallel test run
    // share two cores, so the 1 ms lag limit would fail them at random. Saturation has its
    // own test.
    o.max_lag_p99 = 10'000'000'000;
    o.max_cpu_share = 10;  // likewise: an ASan build's client thread may be busy, not saturated
    return o;
  }

  static std::vector<const ConnectionRecord*> Measured(const LoadResult& r) {
    return test::Measured(r);
  }

  std::unique_ptr<CertChain> chain_;
  std::unique_ptr<EmbeddedServer> server_;
};

TEST_F(LoadTest, FreshNegotiatesTheArmAndPhasesAreOrdered) {
  StartServer("ecdsa-p256", "X25519MLKEM768:X25519");
  LoadOptions o = Options({"X25519"}, ConnMode::kFresh);
  o.expect_sigalg = "ecdsa_secp256r1_sha256";
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto measured = Measured(*r);
  ASSERT_GE(measured.size(), 90u);  // 100/s for 1 s
  for (const ConnectionRecord* c : measured) {
    ASSERT_TRUE(c->ok()) << ErrorClassName(c->error) << ": " << c->error_detail;
    EXPECT_EQ(c->group, "X25519");
    EXPECT_EQ(c->signature_scheme, 0x0403);
    EXPECT_FALSE(c->resumed);
    EXPECT_FALSE(c->hrr);
    EXPECT_GT(c->certificate_bytes, 0u);
    ASSERT_EQ(c->request_count, 1u);
    const RequestRecord& q = r->requests[c->first_request];
    // Every timestamp of the connection's life is in order.
    EXPECT_LE(c->intended_start, c->actual_start);
    EXPECT_LT(c->actual_start, c->tcp_established);
    EXPECT_LT(c->tcp_established, c->tls_done);
    EXPECT_LE(c->tls_done, q.sent);
    EXPECT_LT(q.sent, q.first_byte);
    EXPECT_LE(q.first_byte, q.last_byte);
    EXPECT_LE(q.last_byte, c->closed);
    EXPECT_EQ(q.status, 200u);
    EXPECT_EQ(q.body_bytes, 3u);  // "OK\n"
  }
  LoadSummary s = Summarize(*r);
  EXPECT_TRUE(s.valid()) << (s.invalid_reasons.empty() ? "" : s.invalid_reasons.front());
  // The phases sum: total covers lag + connect + handshake + response (+ the gap between
  // handshake end and request send), so its mean is at least their sum of means.
  const auto& p = s.phases;
  double parts = p[static_cast<size_t>(Phase::kConnect)].mean +
                 p[static_cast<size_t>(Phase::kHandshake)].mean +
                 p[static_cast<size_t>(Phase::kResponse)].mean;
  EXPECT_GE(p[static_cast<size_t>(Phase::kTotal)].mean, parts);
}

TEST_F(LoadTest, ResumeResumesEveryMeasuredConnection) {
  StartServer("ml-dsa-65", "X25519MLKEM768");
  LoadOptions o = Options({"X25519MLKEM768"}, ConnMode::kResume);
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto measured = Measured(*r);
  ASSERT_GE(measured.size(), 90u);
  for (const ConnectionRecord* c : measured) {
    ASSERT_TRUE(c->ok()) << c->error_detail;
    EXPECT_TRUE(c->offered_session);
    EXPECT_TRUE(c->resumed);
    EXPECT_EQ(c->certificate_bytes, 0u);  // PSK: no certificate sent
    EXPECT_EQ(c->signature_scheme, 0);
    EXPECT_EQ(c->group, "X25519MLKEM768");  // psk_dhe_ke: the key exchange still happens
  }
  EXPECT_TRUE(Summarize(*r).valid());
}

TEST_F(LoadTest, ResumeWithoutTicketsIsInvalid) {
  StartServer("ecdsa-p256", "X25519", /*tickets=*/false);
  LoadOptions o = Options({"X25519"}, ConnMode::kResume);
  o.duration = 500'000'000;
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok());
  LoadSummary s = Summarize(*r);
  EXPECT_FALSE(s.valid());
}

// 0-RTT: each measured connection offers a single-use ticket from an earlier connection and
// sends its request as early data, which the server accepts and answers before the handshake
// completes — so the request is sent before the handshake ends, not after it.
TEST_F(LoadTest, EarlyDataIsAcceptedAndItsRequestPrecedesTheHandshakeEnd) {
  StartServer("ecdsa-p256", "X25519MLKEM768", /*tickets=*/true, kEarlyDataBytes);
  LoadOptions o = Options({"X25519MLKEM768"}, ConnMode::kEarly);
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto measured = Measured(*r);
  ASSERT_GE(measured.size(), 90u);
  for (const ConnectionRecord* c : measured) {
    ASSERT_TRUE(c->ok()) << ErrorClassName(c->error) << ": " << c->error_detail;
    EXPECT_TRUE(c->offered_session);
    EXPECT_TRUE(c->resumed);
    EXPECT_EQ(c->early_data, EarlyData::kAccepted);
    EXPECT_GT(c->early_bytes, 0u);
    ASSERT_EQ(c->request_count, 1u);
    const RequestRecord& q = r->requests[c->first_request];
    EXPECT_LT(q.sent, c->tls_done);  // written with the ClientHello
    EXPECT_EQ(q.status, 200u);
    EXPECT_EQ(q.body_bytes, 3u);
  }
  LoadSummary s = Summarize(*r);
  EXPECT_TRUE(s.valid()) << (s.invalid_reasons.empty() ? "" : s.invalid_reasons.front());
  EXPECT_EQ(s.negotiated.early_accepted, measured.size());
  EXPECT_EQ(s.negotiated.early_rejected, 0u);
  server_->Stop();
  const ServerStats st = server_->Wait();  // TearDown's Wait returns the same
  EXPECT_GE(st.early_data_accepted, measured.size());
  EXPECT_GE(st.early_data_bytes, measured.size() * measured.front()->early_bytes);
}

// A server whose tickets allow no early data: the early arm is invalid, saying why — unless
// the arm says that refusal is what it measures (then accepting would be the failure).
TEST_F(LoadTest, EarlyDataRefusedIsInvalidUnlessExpected) {
  StartServer("ecdsa-p256", "X25519");
  LoadOptions o = Options({"X25519"}, ConnMode::kEarly);
  o.duration = 500'000'000;
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const ConnectionRecord* c : Measured(*r)) {
    ASSERT_TRUE(c->ok()) << c->error_detail;
    EXPECT_EQ(c->early_data, EarlyData::kNone);
    EXPECT_TRUE(c->resumed);  // a plain resumption still
  }
  LoadSummary s = Summarize(*r);
  ASSERT_FALSE(s.valid());
  EXPECT_NE(s.invalid_reasons.front().find("could not send early data"), std::string::npos)
      << s.invalid_reasons.front();
  o.early_rejection_expected = true;
  auto expected = RunLoad(o, nullptr);
  ASSERT_TRUE(expected.ok());
  LoadSummary e = Summarize(*expected);
  EXPECT_TRUE(e.valid()) << (e.invalid_reasons.empty() ? "" : e.invalid_reasons.front());
}

TEST_F(LoadTest, ReuseDoesOneHandshakePerNRequests) {
  StartServer("ecdsa-p256", "X25519");
  LoadOptions o = Options({"X25519"}, ConnMode::kReuse);
  o.requests = 5;
  o.rate = 40;
  o.path = "/payload/10K";
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok());
  auto measured = Measured(*r);
  ASSERT_GE(measured.size(), 30u);
  for (const ConnectionRecord* c : measured) {
    ASSERT_TRUE(c->ok()) << c->error_detail;
    EXPECT_EQ(c->request_count, 5u);
    for (uint32_t i = 0; i < c->request_count; ++i) {
      const RequestRecord& q = r->requests[c->first_request + i];
      EXPECT_EQ(q.body_bytes, 10240u);
      if (i > 0) {
        EXPECT_GE(q.sent, r->requests[c->first_request + i - 1].last_byte);
      }
    }
  }
  server_->Stop();
  ServerStats stats = server_->Wait();
  server_.reset();
  // Every connection (warm-up included) did one handshake and five requests.
  EXPECT_EQ(stats.handshakes_full + stats.handshakes_resumed, r->connections.size());
  EXPECT_EQ(stats.requests, 5 * r->connections.size());
  EXPECT_TRUE(Summarize(*r).valid());
}

TEST_F(LoadTest, HelloRetryIsDetectedAndCostsAnotherClientHello) {
  StartServer("ecdsa-p256", "X25519MLKEM768/X25519");
  LoadOptions plain = Options({"X25519MLKEM768", "X25519"}, ConnMode::kFresh);
  plain.duration = 500'000'000;
  LoadOptions retry = plain;
  retry.tls.key_shares = {"X25519"};
  auto a = RunLoad(plain, nullptr);
  auto b = RunLoad(retry, nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  auto ma = Measured(*a), mb = Measured(*b);
  ASSERT_FALSE(ma.empty());
  ASSERT_FALSE(mb.empty());
  for (const ConnectionRecord* c : ma) EXPECT_FALSE(c->hrr);
  for (const ConnectionRecord* c : mb) {
    ASSERT_TRUE(c->ok()) << c->error_detail;
    EXPECT_TRUE(c->hrr);
    EXPECT_EQ(c->group, "X25519MLKEM768");
    // The retry sends a second ClientHello, now with the hybrid key share (1,184 bytes).
    EXPECT_GT(c->handshake_bytes_written, ma.front()->handshake_bytes_written);
  }
  LoadSummary sb = Summarize(*b);
  EXPECT_TRUE(sb.valid());
  EXPECT_EQ(sb.negotiated.hrr, mb.size());
}

TEST_F(LoadTest, NegotiatingAnotherGroupThanAskedIsInvalid) {
  StartServer("ecdsa-p256", "X25519");
  LoadOptions o = Options({"X25519MLKEM768", "X25519"}, ConnMode::kFresh);
  o.duration = 500'000'000;
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok());
  LoadSummary s = Summarize(*r);
  ASSERT_FALSE(s.valid());
  bool named = false;
  for (const std::string& reason : s.invalid_reasons) {
    named |= reason.find("X25519MLKEM768") != std::string::npos &&
             reason.find("X25519") != std::string::npos;
  }
  EXPECT_TRUE(named) << s.invalid_reasons.front();
}

TEST_F(LoadTest, SaturationIsDetectedFarBeyondTheMachine) {
  StartServer("ecdsa-p256", "X25519MLKEM768");
  LoadOptions o = Options({"X25519MLKEM768"}, ConnMode::kFresh);
  // 20,000 hybrid ClientHellos a second is several times what one client thread can make:
  // the schedule falls behind, and the run must say so rather than report the server slow.
  o.rate = 20'000;
  o.duration = 100'000'000;
  o.max_inflight = 3'000;
  o.warmup = 0;
  o.max_lag_p99 = 1'000'000;
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok());
  LoadSummary s = Summarize(*r);
  EXPECT_FALSE(s.valid());
  EXPECT_TRUE(s.loadgen.saturated);
  bool named = false;
  for (const std::string& reason : s.invalid_reasons) {
    named |= reason.find("saturated") != std::string::npos;
  }
  EXPECT_TRUE(named);
}

TEST_F(LoadTest, RefusedConnectionsAreClassified) {
  StartServer("ecdsa-p256", "X25519");
  LoadOptions o = Options({"X25519"}, ConnMode::kFresh);
  server_->Stop();
  server_->Wait();
  server_.reset();
  o.duration = 200'000'000;
  o.warmup = 0;
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->connections.empty());
  for (const ConnectionRecord& c : r->connections) EXPECT_EQ(c.error, ErrorClass::kRefused);
  EXPECT_FALSE(Summarize(*r).valid());
}

TEST_F(LoadTest, CliWritesTheDocumentedJsonShape) {
  StartServer("ecdsa-p256", "X25519MLKEM768:X25519");
  const std::string json_path = ::testing::TempDir() + "/load.json";
  const std::string csv_path = ::testing::TempDir() + "/load.csv";
  const std::string cmd =
      std::string(PQC_BENCH_BIN) + " load --target " + server_->address().ToString() +
      " --rate 50 --duration 1s --warmup 0.2s --groups X25519MLKEM768 --max-lag-p99 10s"
      " --json " +
      json_path + " --samples " + csv_path + " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(json_path);
  nlohmann::json j = nlohmann::json::parse(in);
  for (const char* key : {"arm", "connections", "errors", "negotiated", "phases", "bytes",
                          "loadgen", "valid", "invalid_reasons"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* phase : {"connect", "handshake", "ttfb", "response", "total"}) {
    for (const char* stat :
         {"count", "min", "mean", "p50", "p75", "p90", "p95", "p99", "p999", "max"}) {
      EXPECT_TRUE(j["phases"][phase].contains(stat)) << phase << "." << stat;
    }
  }
  for (const char* key : {"rate_target", "rate_achieved", "lag_p99_us", "cpu_user_s", "cpu_sys_s",
                          "cpu_us_per_connection", "saturated"}) {
    EXPECT_TRUE(j["loadgen"].contains(key)) << key;
  }
  EXPECT_EQ(j["negotiated"]["groups"]["X25519MLKEM768"], j["connections"]);
  EXPECT_TRUE(j["valid"].get<bool>());
  EXPECT_TRUE(j["errors"].contains("by_class"));
  // One CSV row per connection (warm-up included) plus the header.
  std::ifstream csv(csv_path);
  size_t lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_GE(lines, 1u + j["connections"].get<size_t>());
}

TEST_F(LoadTest, MixFollowsItsWeights) {
  StartServer("ecdsa-p256", "X25519");
  LoadOptions o = Options({"X25519"}, ConnMode::kResume);
  o.mix = {{ConnMode::kResume, 80}, {ConnMode::kFresh, 20}};
  // 150/s: a resume connection needs the ticket of one that has finished, which a ThreadSanitizer
  // build beside another test delivered too late at 250/s (23 of 306 then found none).
  o.rate = 150;
  o.duration = 2'300'000'000;
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok());
  size_t fresh = 0, resumed = 0, total = 0;
  for (const ConnectionRecord* c : Measured(*r)) {
    ASSERT_TRUE(c->ok()) << c->error_detail;
    ++total;
    if (c->mode == ConnMode::kFresh) {
      ++fresh;
      EXPECT_FALSE(c->resumed);
    } else {
      resumed += c->resumed ? 1 : 0;
    }
  }
  ASSERT_GE(total, 300u);
  // 20 % fresh: with ~400 seeded draws the share stays well inside 10-30 %.
  EXPECT_GT(fresh, total / 10);
  EXPECT_LT(fresh, total * 3 / 10);
  // Every resume connection that found a ticket resumed; under ASan beside CI's other tests one
  // of 280 found none in time (2026-12-05: 279 resumed), so 1 % may go without.
  EXPECT_LE(resumed, total - fresh);
  EXPECT_GE(resumed * 100, (total - fresh) * 99);
  // The summary calls a run whose resume connections found no ticket invalid, and it must say
  // so; under ASan beside CI's other tests 2 of ~280 found none (2026-12-05), so the run is
  // judged valid when all found one, and otherwise that must be its only reason, for at most 1 %.
  LoadSummary summary = Summarize(*r);
  const size_t without = summary.negotiated.resume_without_session;
  EXPECT_LE(without * 100, total - fresh);
  if (without == 0) {
    EXPECT_TRUE(summary.valid()) << summary.invalid_reasons.front();
  } else {
    ASSERT_EQ(summary.invalid_reasons.size(), 1u) << summary.invalid_reasons.back();
    EXPECT_NE(summary.invalid_reasons.front().find("had no session to offer"), std::string::npos)
        << summary.invalid_reasons.front();
  }
}

// client_cpus: the load threads run where they are placed, and a CPU this process may not use
// ends the load before its first connection, saying which CPUs it may use.
TEST_F(LoadTest, PlacedLoadThreadsMeasureAndAnUnavailableCpuIsRefusedFirst) {
  StartServer("ecdsa-p256", "X25519");
  LoadOptions o = Options({"X25519"}, ConnMode::kFresh);
  o.threads = 2;
  o.rate = 50;
  o.duration = 400'000'000;
  o.warmup = 0;
  o.cpus = {0};
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  size_t measured = 0;
  for (const ConnectionRecord* c : Measured(*r)) {
    EXPECT_TRUE(c->ok()) << c->error_detail;
    ++measured;
  }
  EXPECT_GE(measured, 10u);
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  if (CPU_ISSET(kMaxCpu, &mine)) GTEST_SKIP() << "this machine has CPU " << kMaxCpu;
  o.cpus = {0, kMaxCpu};
  auto refused = RunLoad(o, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            fmt::format("client_cpus: CPU {} is not one this process may run on (available: {})",
                        kMaxCpu, AvailableCpusText()));
}

TEST_F(LoadTest, IdleKeepAliveConnectionsStayOpenBetweenRequests) {
  StartServer("ecdsa-p256", "X25519");
  LoadOptions o = Options({"X25519"}, ConnMode::kReuse);
  o.requests = 3;
  o.request_interval = 200'000'000;
  o.rate = 50;
  o.duration = 500'000'000;
  o.warmup = 0;
  auto r = RunLoad(o, nullptr);
  ASSERT_TRUE(r.ok());
  auto measured = Measured(*r);
  ASSERT_GE(measured.size(), 20u);
  for (const ConnectionRecord* c : measured) {
    ASSERT_TRUE(c->ok()) << c->error_detail;
    ASSERT_EQ(c->request_count, 3u);
    for (uint32_t i = 1; i < 3; ++i) {
      // Each request waits out the interval after the previous response.
      EXPECT_GE(r->requests[c->first_request + i].sent,
                r->requests[c->first_request + i - 1].last_byte + o.request_interval);
    }
  }
  // Connections overlapped: with 3 x 200 ms of life each at 50/s, about 20 were open at once.
  EXPECT_GT(measured.back()->tcp_established, measured.front()->tcp_established);
  EXPECT_LT(measured[10]->tcp_established, measured.front()->closed);
  EXPECT_TRUE(Summarize(*r).valid());
}

TEST_F(LoadTest, InterruptedRunKeepsWhatItMeasured) {
  StartServer("ecdsa-p256", "X25519");
  const std::string json_path = ::testing::TempDir() + "/interrupted.json";
  std::remove(json_path.c_str());
  // Everything the child needs is made before fork: the server's threads may hold malloc's
  // lock at that moment, so the child only calls execl.
  const std::string target = server_->address().ToString();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(PQC_BENCH_BIN, PQC_BENCH_BIN, "load", "--target", target.c_str(), "--rate", "100",
          "--duration", "60s", "--warmup", "0s", "--groups", "X25519", "--json", json_path.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // 3 s at 100/s: under ASan beside CI's other tests the child's start took over a second
  // (44 connections measured after 1.5 s, 2026-12-05).
  usleep(3'000'000);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);  // measured, but invalid: interrupted
  std::ifstream in(json_path);
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_GT(j["connections"].get<int>(), 50);  // of about 300 scheduled
  EXPECT_FALSE(j["valid"].get<bool>());
  EXPECT_NE(j["invalid_reasons"].dump().find("interrupted"), std::string::npos);
}

}  // namespace
}  // namespace pqc
