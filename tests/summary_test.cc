// LoadSummary, its printers and the samples CSV over hand-built LoadResults whose timestamps
// are known, so every phase, count and validity reason has an exact expected value.
#include "records/summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "records/samples_csv.h"
#include "records/summary_output.h"
#include "core/csv.h"

namespace pqc {
namespace {

constexpr Nanos kUs = 1'000;
constexpr Nanos kT0 = 5'000'000'000;  // run_start: an arbitrary monotonic time
constexpr uint16_t kMlDsa65 = 0x0905;
constexpr uint16_t kEcdsaP256 = 0x0403;

// FakeRun: a LoadResult under construction, all connections measured unless said otherwise.
struct FakeRun {
  LoadResult result;

  FakeRun() {
    result.run_start = kT0;
    result.options.rate = 100;
    result.options.mix = {{ConnMode::kFresh, 1}};
    result.measured_wall_s = 1.0;
    result.threads = 1;
    result.cpu_user_s = 0.01;
    result.cpu_sys_s = 0.01;
  }

  // Add: a successful connection intended at kT0 + at µs, with connect 100 + extra µs,
  // handshake 1000 + extra µs, lag 10 µs and `requests` requests of ttfb 200 + extra µs and
  // response 250 + extra µs, back to back.
  ConnectionRecord& Add(Nanos at_us, Nanos extra_us = 0, uint32_t requests = 1) {
    ConnectionRecord c;
    c.id = result.connections.size();
    c.measured = true;
    c.mode = result.options.mix.front().mode;
    c.intended_start = kT0 + at_us * kUs;
    c.actual_start = c.intended_start + 10 * kUs;
    c.tcp_established = c.actual_start + (100 + extra_us) * kUs;
    c.tls_done = c.tcp_established + (1000 + extra_us) * kUs;
    c.first_request = static_cast<uint32_t>(result.requests.size());
    c.request_count = requests;
    Nanos t = c.tls_done;
    for (uint32_t i = 0; i < requests; ++i) {
      RequestRecord r;
      r.sent = t + 5 * kUs;
      r.first_byte = r.sent + (200 + extra_us) * kUs;
      r.last_byte = r.sent + (250 + extra_us) * kUs;
      r.status = 200;
      r.body_bytes = 3;
      result.requests.push_back(r);
      t = r.last_byte;
    }
    c.closed = t + 1 * kUs;
    c.handshake_bytes_written = 1500;
    c.handshake_bytes_read = 9000;
    c.client_hello_bytes = 1400;
    c.server_hello_bytes = 1200;
    c.certificate_bytes = 6000;
    c.certificate_verify_bytes = 3400;
    c.group = "X25519MLKEM768";
    c.signature_scheme = kMlDsa65;
    c.cipher = "TLS_AES_256_GCM_SHA384";
    result.connections.push_back(c);
    return result.connections.back();
  }

  // AddFailed: a connection that got TCP but timed out in the handshake.
  ConnectionRecord& AddFailed(Nanos at_us, ErrorClass error = ErrorClass::kTimeout) {
    ConnectionRecord c;
    c.id = result.connections.size();
    c.measured = true;
    c.mode = result.options.mix.front().mode;
    c.intended_start = kT0 + at_us * kUs;
    c.actual_start = c.intended_start + 10 * kUs;
    c.tcp_established = c.actual_start + 100 * kUs;
    c.closed = c.tcp_established + 10'000 * kUs;
    c.handshake_bytes_written = 1500;
    c.error = error;
    c.error_detail = "no progress";
    c.first_request = static_cast<uint32_t>(result.requests.size());
    result.connections.push_back(c);
    return result.connections.back();
  }

  void SetMode(ConnMode mode, std::string text) {
    result.options.mix = {{mode, 1}};
    result.options.mode_text = std::move(text);
  }

  LoadSummary Summary() const { return Summarize(result); }
};

bool HasReason(const LoadSummary& s, std::string_view text) {
  for (const std::string& r : s.invalid_reasons) {
    if (r.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string Reasons(const LoadSummary& s) {
  std::string out;
  for (const std::string& r : s.invalid_reasons) out += r + "\n";
  return out;
}

TEST(LoadSummary, PhasesFromKnownTimestamps) {
  FakeRun run;
  run.SetMode(ConnMode::kReuse, "reuse");
  run.result.options.requests = 2;
  run.Add(0, 0, 2);
  run.Add(1000, 10, 2);
  run.Add(2000, 20, 2);
  const LoadSummary s = run.Summary();
  EXPECT_TRUE(s.valid()) << Reasons(s);
  EXPECT_EQ(s.connections, 3u);

  const PhaseStats& connect = s.phase(Phase::kConnect);
  EXPECT_EQ(connect.count, 3u);
  EXPECT_DOUBLE_EQ(connect.min, 100);
  EXPECT_DOUBLE_EQ(connect.p50, 110);
  EXPECT_DOUBLE_EQ(connect.max, 120);
  const PhaseStats& handshake = s.phase(Phase::kHandshake);
  EXPECT_DOUBLE_EQ(handshake.min, 1000);
  EXPECT_DOUBLE_EQ(handshake.mean, 1010);
  EXPECT_DOUBLE_EQ(handshake.max, 1020);
  // Two requests per connection: six ttfb and response samples.
  EXPECT_EQ(s.phase(Phase::kTtfb).count, 6u);
  EXPECT_DOUBLE_EQ(s.phase(Phase::kTtfb).min, 200);
  EXPECT_DOUBLE_EQ(s.phase(Phase::kTtfb).max, 220);
  EXPECT_EQ(s.phase(Phase::kResponse).count, 6u);
  EXPECT_DOUBLE_EQ(s.phase(Phase::kResponse).mean, 260);
  // total = lag 10 + connect + handshake + 2 × (5 + response).
  const PhaseStats& total = s.phase(Phase::kTotal);
  EXPECT_EQ(total.count, 3u);
  EXPECT_DOUBLE_EQ(total.min, 10 + 100 + 1000 + 2 * 255);
  EXPECT_DOUBLE_EQ(total.max, 10 + 120 + 1020 + 2 * 275);

  EXPECT_DOUBLE_EQ(s.loadgen.lag_p99_us, 10);
  EXPECT_DOUBLE_EQ(s.loadgen.rate_achieved, 3.0);
  EXPECT_DOUBLE_EQ(s.loadgen.cpu_us_per_connection, 0.02 * 1e6 / 3);
  EXPECT_DOUBLE_EQ(s.loadgen.cpu_share, 0.02);
  EXPECT_FALSE(s.loadgen.saturated);
  EXPECT_EQ(s.bytes.response_body_total, 18u);
  EXPECT_EQ(s.bytes.handshake_written_total, 4500u);
  EXPECT_DOUBLE_EQ(s.bytes.handshake_read_mean, 9000);
  EXPECT_EQ(s.negotiated.groups.at("X25519MLKEM768"), 3u);
  EXPECT_EQ(s.negotiated.sigalgs.at("mldsa65"), 3u);
  EXPECT_EQ(s.negotiated.ciphers.at("TLS_AES_256_GCM_SHA384"), 3u);
}

TEST(LoadSummary, WarmupNeverLeaksIn) {
  FakeRun run;
  run.result.options.expect_group = "X25519MLKEM768";
  run.Add(0);
  ConnectionRecord& warm = run.Add(10, 5000);
  warm.measured = false;
  warm.group = "X25519";
  warm.resumed = true;
  run.AddFailed(20).measured = false;
  const LoadSummary s = run.Summary();
  EXPECT_EQ(s.connections, 1u);
  EXPECT_EQ(s.errors, 0u);
  for (Phase p : kAllPhases) EXPECT_EQ(s.phase(p).count, 1u) << PhaseName(p);
  EXPECT_DOUBLE_EQ(s.phase(Phase::kHandshake).max, 1000);
  EXPECT_EQ(s.negotiated.groups.size(), 1u);
  EXPECT_EQ(s.negotiated.resumed, 0u);
  EXPECT_TRUE(s.valid()) << Reasons(s);
}

TEST(LoadSummary, FailedPhasesAreSkippedAndErrorsCountedByClass) {
  FakeRun run;
  run.result.options.max_error_rate = 1.0;
  run.Add(0);
  run.AddFailed(10, ErrorClass::kTimeout);
  run.AddFailed(20, ErrorClass::kTimeout);
  run.AddFailed(30, ErrorClass::kReset);
  const LoadSummary s = run.Summary();
  EXPECT_EQ(s.connections, 4u);
  EXPECT_EQ(s.errors, 3u);
  EXPECT_EQ(s.errors_by_class.at("timeout"), 2u);
  EXPECT_EQ(s.errors_by_class.at("reset"), 1u);
  EXPECT_DOUBLE_EQ(s.error_rate, 0.75);
  EXPECT_EQ(s.phase(Phase::kConnect).count, 4u);  // TCP succeeded on all four
  EXPECT_EQ(s.phase(Phase::kHandshake).count, 1u);
  EXPECT_EQ(s.phase(Phase::kTotal).count, 1u);
  EXPECT_EQ(s.negotiated.handshakes, 1u);
  EXPECT_DOUBLE_EQ(s.bytes.handshake_written_mean, 1500);  // over completed handshakes
  EXPECT_TRUE(s.valid()) << Reasons(s);
}

TEST(LoadSummary, MessageMeansOnlyOverConnectionsThatHadThem) {
  FakeRun run;
  run.SetMode(ConnMode::kResume, "resume");
  run.Add(0);  // full handshake, no session offered
  for (int i = 1; i <= 3; ++i) {
    ConnectionRecord& c = run.Add(i * 100);
    c.offered_session = true;
    c.resumed = true;
    c.signature_scheme = 0;
    c.certificate_bytes = 0;
    c.certificate_verify_bytes = 0;
    c.server_hello_bytes = 200;
  }
  const LoadSummary s = run.Summary();
  EXPECT_EQ(s.bytes.certificate.count, 1u);
  EXPECT_DOUBLE_EQ(s.bytes.certificate.mean, 6000);
  EXPECT_EQ(s.bytes.server_hello.count, 4u);
  EXPECT_DOUBLE_EQ(s.bytes.server_hello.mean, (1200 + 3 * 200) / 4.0);
  EXPECT_EQ(s.negotiated.resumed, 3u);
  EXPECT_EQ(s.negotiated.resume_without_session, 1u);
  // A resume arm that measured a full handshake did not measure what it claims.
  ASSERT_EQ(s.invalid_reasons.size(), 1u) << Reasons(s);
  EXPECT_NE(s.invalid_reasons[0].find("1 resume connections had no session to offer"),
            std::string::npos);
}

TEST(LoadSummary, GroupMismatchCountsEachWrongGroup) {
  FakeRun run;
  run.result.options.expect_group = "X25519MLKEM768";
  for (int i = 0; i < 5; ++i) run.Add(i * 100);
  EXPECT_TRUE(run.Summary().valid());
  run.result.connections[1].group = "X25519";
  run.result.connections[3].group = "X25519";
  run.result.connections[4].group = "secp256r1";
  LoadSummary s = run.Summary();
  EXPECT_FALSE(s.valid());
  EXPECT_TRUE(HasReason(s, "2 of 5 connections negotiated group X25519 instead of X25519MLKEM768"))
      << Reasons(s);
  EXPECT_TRUE(HasReason(s, "1 of 5 connections negotiated group secp256r1 instead of"));
  run.result.options.expect_group.clear();  // not checked
  EXPECT_TRUE(run.Summary().valid());
}

TEST(LoadSummary, SigalgMismatchIgnoresResumedConnections) {
  FakeRun run;
  run.SetMode(ConnMode::kResume, "resume");
  run.result.options.expect_sigalg = "ml-dsa-65";  // our name; records carry "mldsa65"
  // A mix arm: its fresh share makes the full handshake whose signature is checked.
  run.result.options.mix = {{ConnMode::kResume, 80}, {ConnMode::kFresh, 20}};
  run.Add(0).mode = ConnMode::kFresh;
  for (int i = 1; i <= 4; ++i) {
    ConnectionRecord& c = run.Add(i * 100);
    c.offered_session = true;
    c.resumed = true;
    c.signature_scheme = 0;
  }
  EXPECT_TRUE(run.Summary().valid()) << Reasons(run.Summary());
  run.result.connections[0].signature_scheme = kEcdsaP256;
  const LoadSummary s = run.Summary();
  EXPECT_EQ(s.invalid_reasons.size(), 1u) << Reasons(s);
  EXPECT_TRUE(HasReason(
      s,
      "1 of 1 connections negotiated signature algorithm ecdsa_secp256r1_sha256 instead of "
      "mldsa65"))
      << Reasons(s);
  run.result.options.expect_sigalg = "ecdsa_secp256r1_sha256";  // TLS name accepted too
  EXPECT_TRUE(run.Summary().valid()) << Reasons(run.Summary());
}

TEST(LoadSummary, ResumeConnectionsThatOfferedASessionMustResume) {
  FakeRun run;
  run.SetMode(ConnMode::kResume, "resume");
  for (int i = 1; i <= 4; ++i) {
    ConnectionRecord& c = run.Add(i * 100);
    c.offered_session = true;
    c.resumed = true;
  }
  EXPECT_TRUE(run.Summary().valid());
  run.result.connections[2].resumed = false;
  const LoadSummary s = run.Summary();
  EXPECT_EQ(s.invalid_reasons.size(), 1u) << Reasons(s);
  EXPECT_TRUE(HasReason(s, "1 of 4 resume connections were not resumed")) << Reasons(s);
}

TEST(LoadSummary, FreshAndReuseConnectionsMustNotResume) {
  for (ConnMode mode : {ConnMode::kFresh, ConnMode::kReuse}) {
    FakeRun run;
    run.SetMode(mode, std::string(ConnModeName(mode)));
    for (int i = 0; i < 3; ++i) run.Add(i * 100);
    EXPECT_TRUE(run.Summary().valid());
    run.result.connections[0].resumed = true;
    run.result.connections[2].resumed = true;
    const LoadSummary s = run.Summary();
    const std::string expected =
        "2 connections resumed in a " + std::string(ConnModeName(mode)) + " arm";
    EXPECT_TRUE(HasReason(s, expected)) << Reasons(s);
    EXPECT_EQ(s.invalid_reasons.size(), 1u) << Reasons(s);
  }
}

TEST(LoadSummary, ReuseConnectionsMustCompleteEveryRequest) {
  FakeRun run;
  run.SetMode(ConnMode::kReuse, "reuse");
  run.result.options.requests = 3;
  run.Add(0, 0, 3);
  run.Add(100, 0, 3);
  EXPECT_TRUE(run.Summary().valid());
  run.Add(200, 0, 2);
  const LoadSummary s = run.Summary();
  EXPECT_TRUE(HasReason(s, "1 of 3 reuse connections did not complete 3 requests")) << Reasons(s);
}

TEST(LoadSummary, SaturationByLag) {
  FakeRun run;
  run.result.options.max_lag_p99 = 1'000 * kUs;  // a strict limit (the default is 20 ms)
  for (int i = 0; i < 100; ++i) run.Add(i * 100);
  EXPECT_FALSE(run.Summary().loadgen.saturated);
  // Two late starts of 5 ms: the p99 of 100 lags interpolates between them.
  for (int i : {98, 99}) run.result.connections[i].actual_start += 5'000 * kUs;
  const LoadSummary s = run.Summary();
  EXPECT_TRUE(s.loadgen.saturated);
  EXPECT_TRUE(s.loadgen.saturated_by_lag);
  EXPECT_FALSE(s.loadgen.saturated_by_cpu);
  EXPECT_DOUBLE_EQ(s.loadgen.lag_p99_us, 5010);
  EXPECT_TRUE(HasReason(s, "load generator saturated: lag p99 5010.0 µs > 1000 µs (median 10.0 µs"))
      << Reasons(s);
  // One late start among 100 stays under the p99.
  run.result.connections[98].actual_start -= 5'000 * kUs;
  const LoadSummary ok = run.Summary();
  EXPECT_LT(ok.loadgen.lag_p99_us, 1000);
  EXPECT_TRUE(ok.valid()) << Reasons(ok);
}

// At the default limit (20 ms) a machine's pauses — a few starts late by milliseconds, the
// median on time — leave the trial valid; a generator behind its schedule, late by more and
// more, does not.
TEST(LoadSummary, TheDefaultLagLimitTellsAPauseFromABacklog) {
  FakeRun run;
  ASSERT_EQ(run.result.options.max_lag_p99, 20'000 * kUs);
  for (int i = 0; i < 100; ++i) run.Add(i * 100);
  for (int i : {40, 41, 97, 98, 99}) run.result.connections[i].actual_start += 11'000 * kUs;
  const LoadSummary paused = run.Summary();
  EXPECT_GT(paused.loadgen.lag_p99_us, 1000);
  EXPECT_TRUE(paused.valid()) << Reasons(paused);
  // Behind: each start 1 ms later than the one before (100 ms at the end).
  for (int i = 0; i < 100; ++i) {
    run.result.connections[i].actual_start =
        run.result.connections[i].intended_start + i * 1'000 * kUs;
  }
  const LoadSummary behind = run.Summary();
  EXPECT_TRUE(behind.loadgen.saturated_by_lag);
  EXPECT_GT(behind.loadgen.lag_p50_us, 20'000);
  EXPECT_TRUE(HasReason(behind, "load generator saturated: lag p99 ")) << Reasons(behind);
  EXPECT_TRUE(HasReason(behind, "> 20000 µs (median ")) << Reasons(behind);
}

TEST(LoadSummary, SaturationByCpu) {
  FakeRun run;
  run.Add(0);
  run.result.threads = 2;
  run.result.measured_wall_s = 1.0;
  run.result.cpu_user_s = 1.5;
  run.result.cpu_sys_s = 0.3;  // 1.8 s of 2 s: exactly 90 % is not over the limit
  EXPECT_FALSE(run.Summary().loadgen.saturated);
  run.result.cpu_sys_s = 0.4;
  const LoadSummary s = run.Summary();
  EXPECT_TRUE(s.loadgen.saturated_by_cpu);
  EXPECT_DOUBLE_EQ(s.loadgen.cpu_share, 0.95);
  EXPECT_DOUBLE_EQ(s.loadgen.cpu_us_per_connection, 1.9e6);
  EXPECT_TRUE(HasReason(s, "load generator saturated: CPU 95.0 % of 2 threads > 90 %"))
      << Reasons(s);
  // A busy-polling client is on its CPU by design: the share is reported, not judged; its
  // start lag still is.
  run.result.options.busy_poll = true;
  const LoadSummary polled = run.Summary();
  EXPECT_FALSE(polled.loadgen.saturated_by_cpu);
  EXPECT_DOUBLE_EQ(polled.loadgen.cpu_share, 0.95);
  EXPECT_TRUE(polled.arm.busy_poll);
  EXPECT_TRUE(polled.valid()) << Reasons(polled);
}

TEST(LoadSummary, ErrorRateAboveThreshold) {
  FakeRun run;  // max_error_rate 1 %
  for (int i = 0; i < 199; ++i) run.Add(i * 10);
  run.AddFailed(5000);
  EXPECT_TRUE(run.Summary().valid()) << Reasons(run.Summary());  // 0.5 %
  for (int i = 0; i < 151; ++i) run.result.connections.pop_back();
  run.AddFailed(6000);
  const LoadSummary s = run.Summary();  // 49 ok + 1 failed: 2 %
  EXPECT_TRUE(HasReason(s, "error rate 2.00 % (1 of 50 connections) > 1 %")) << Reasons(s);
}

TEST(LoadSummary, SkippedArrivalsInvalidate) {
  FakeRun run;
  run.Add(0);
  run.result.skipped = 3;
  const LoadSummary s = run.Summary();
  EXPECT_TRUE(HasReason(s, "3 arrivals skipped: max in-flight")) << Reasons(s);
}

TEST(LoadSummary, EmptyResultIsInvalid) {
  const LoadSummary s = Summarize(LoadResult{});
  EXPECT_FALSE(s.valid());
  EXPECT_TRUE(HasReason(s, "no measured connections"));
  EXPECT_EQ(s.invalid_reasons.size(), 1u) << Reasons(s);
  for (Phase p : kAllPhases) EXPECT_EQ(s.phase(p).count, 0u);
}

// Every key of the documented JSON shape, whatever the data.
void ExpectShape(const nlohmann::json& j) {
  for (const char* key : {"arm", "connections", "errors", "negotiated", "phases", "bytes",
                          "loadgen", "valid", "invalid_reasons"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key :
       {"target", "mode", "mix", "rate", "arrivals", "duration_s", "warmup_s", "requests", "path",
        "groups", "key_shares", "sigalgs", "threads", "timeout_s"}) {
    EXPECT_TRUE(j["arm"].contains(key)) << "arm." << key;
  }
  EXPECT_TRUE(j["errors"].contains("total"));
  EXPECT_TRUE(j["errors"]["by_class"].is_object());
  for (const char* key : {"groups", "sigalgs"}) EXPECT_TRUE(j["negotiated"][key].is_object());
  for (const char* key : {"resumed", "hrr"}) EXPECT_TRUE(j["negotiated"][key].is_number());
  for (const char* phase : {"connect", "handshake", "ttfb", "response", "total"}) {
    for (const char* key :
         {"count", "min", "mean", "p50", "p75", "p90", "p95", "p99", "p999", "max"}) {
      EXPECT_TRUE(j["phases"][phase].contains(key)) << phase << "." << key;
    }
  }
  for (const char* key : {"handshake_written", "handshake_read", "client_hello", "server_hello",
                          "certificate", "certificate_verify", "response_body"}) {
    EXPECT_TRUE(j["bytes"].contains(key)) << "bytes." << key;
  }
  for (const char* key : {"rate_target", "rate_achieved", "lag_p99_us", "cpu_user_s", "cpu_sys_s",
                          "cpu_us_per_connection", "saturated"}) {
    EXPECT_TRUE(j["loadgen"].contains(key)) << "loadgen." << key;
  }
  EXPECT_TRUE(j["valid"].is_boolean());
  EXPECT_TRUE(j["invalid_reasons"].is_array());
}

nlohmann::json RoundTrip(const LoadSummary& s) {
  std::ostringstream out;
  WriteSummaryJson(out, s);
  const std::string text = out.str();
  for (const char* bad : {"NaN", "nan", "inf", "Infinity"}) {
    EXPECT_EQ(text.find(bad), std::string::npos) << bad << " in\n" << text;
  }
  return nlohmann::json::parse(text);  // throws (fails the test) if not JSON
}

TEST(SummaryJson, EmptyResultHasEveryKeyWithNulls) {
  const nlohmann::json j = RoundTrip(Summarize(LoadResult{}));
  ExpectShape(j);
  EXPECT_EQ(j["connections"], 0);
  EXPECT_EQ(j["phases"]["handshake"]["count"], 0);
  EXPECT_TRUE(j["phases"]["handshake"]["p99"].is_null());
  EXPECT_TRUE(j["loadgen"]["lag_p99_us"].is_null());
  EXPECT_TRUE(j["loadgen"]["rate_achieved"].is_null());
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["invalid_reasons"][0], "no measured connections");
}

TEST(SummaryJson, FullResultCarriesTheNumbers) {
  FakeRun run;
  run.result.options.tls.groups = {"X25519MLKEM768", "X25519"};
  run.result.options.tls.sigalgs = "mldsa65:ecdsa_secp256r1_sha256";
  run.result.options.duration = 2'000'000'000;
  run.Add(0);
  run.Add(100, 10);
  run.AddFailed(200);
  run.result.options.max_error_rate = 0.5;
  const nlohmann::json j = RoundTrip(run.Summary());
  ExpectShape(j);
  EXPECT_EQ(j["arm"]["mode"], "fresh");
  EXPECT_EQ(j["arm"]["duration_s"], 2.0);
  EXPECT_EQ(j["arm"]["groups"], nlohmann::json({"X25519MLKEM768", "X25519"}));
  EXPECT_EQ(j["arm"]["sigalgs"], nlohmann::json({"mldsa65", "ecdsa_secp256r1_sha256"}));
  EXPECT_EQ(j["arm"]["mix"]["fresh"], 1.0);
  EXPECT_EQ(j["connections"], 3);
  EXPECT_EQ(j["errors"]["total"], 1);
  EXPECT_EQ(j["errors"]["by_class"]["timeout"], 1);
  EXPECT_EQ(j["negotiated"]["groups"]["X25519MLKEM768"], 2);
  EXPECT_EQ(j["negotiated"]["sigalgs"]["mldsa65"], 2);
  EXPECT_EQ(j["phases"]["connect"]["count"], 3);
  EXPECT_EQ(j["phases"]["handshake"]["min"], 1000.0);
  EXPECT_EQ(j["phases"]["handshake"]["max"], 1010.0);
  EXPECT_EQ(j["bytes"]["certificate"]["mean"], 6000.0);
  EXPECT_EQ(j["loadgen"]["saturated"], false);
  EXPECT_EQ(j["valid"], true);
}

TEST(SummaryTable, EveryPhaseWithOneDecimalThenVerdict) {
  FakeRun run;
  run.result.options.expect_group = "X25519MLKEM768";
  run.Add(0);
  run.Add(100, 10);
  run.result.connections[1].group = "X25519";
  std::ostringstream out;
  WriteSummaryTable(out, run.Summary());
  const std::string text = out.str();
  for (const char* word : {"connect", "handshake", "ttfb", "response", "total", "p99.9", "1000.0",
                           "1005.0", "1010.0", "X25519MLKEM768 1", "mldsa65 2", "load generator",
                           "INVALID", "- 1 of 2 connections negotiated group X25519 instead of"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word << " not in\n" << text;
  }
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
}

TEST(SummaryTable, EmptyResultPrintsDashesNotNan) {
  std::ostringstream out;
  WriteSummaryTable(out, Summarize(LoadResult{}));
  const std::string text = out.str();
  EXPECT_NE(text.find("| connect "), std::string::npos) << text;
  EXPECT_NE(text.find(" - |"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  EXPECT_NE(text.find("INVALID\n- no measured connections"), std::string::npos) << text;
}

// ParseCsv: RFC 4180 records (quoted fields may hold commas, quotes and newlines).
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (ch == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else {
      field += ch;
    }
  }
  EXPECT_TRUE(rows.back().empty() && field.empty()) << "CSV must end with a line end";
  rows.pop_back();
  return rows;
}

TEST(SamplesCsv, FixedHeaderAndQuotedDetailRoundTrip) {
  FakeRun run;
  run.Add(0);
  ConnectionRecord& warm = run.Add(100);
  warm.measured = false;
  warm.resumed = true;
  warm.signature_scheme = 0;
  warm.protocol = Protocol::kH3;  // over QUIC: its datagrams, and no connect phase
  warm.initial_datagrams = 2;
  warm.handshake_datagrams_sent = 4;
  warm.handshake_datagrams_received = 9;
  warm.amplification_limited = true;
  const std::string detail = "alert \"handshake_failure\", then\nclosed";
  run.AddFailed(200, ErrorClass::kTlsAlert).error_detail = detail;
  std::ostringstream out;
  WriteSamplesCsv(out, run.result);
  const auto rows = ParseCsv(out.str());
  ASSERT_EQ(rows.size(), 4u) << out.str();
  const std::vector<std::string>& header = rows[0];
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')), SamplesCsvHeader());
  for (const auto& row : rows) EXPECT_EQ(row.size(), header.size());
  auto col = [&header](std::string_view name) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    ADD_FAILURE() << "no column " << name;
    return size_t{0};
  };
  // First connection: timestamps relative to run_start, phases in µs, first request.
  EXPECT_EQ(rows[1][col("measured")], "1");
  EXPECT_EQ(rows[1][col("mode")], "fresh");
  EXPECT_EQ(rows[1][col("intended_start_us")], "0.000");
  EXPECT_EQ(rows[1][col("actual_start_us")], "10.000");
  EXPECT_EQ(rows[1][col("lag_us")], "10.000");
  EXPECT_EQ(rows[1][col("connect_us")], "100.000");
  EXPECT_EQ(rows[1][col("handshake_us")], "1000.000");
  EXPECT_EQ(rows[1][col("ttfb_us")], "200.000");
  EXPECT_EQ(rows[1][col("response_us")], "250.000");
  EXPECT_EQ(rows[1][col("total_us")], "1365.000");
  EXPECT_EQ(rows[1][col("req_sent_us")], "1115.000");
  EXPECT_EQ(rows[1][col("req_status")], "200");
  EXPECT_EQ(rows[1][col("request_count")], "1");
  EXPECT_EQ(rows[1][col("sigalg")], "mldsa65");
  EXPECT_EQ(rows[1][col("group")], "X25519MLKEM768");
  EXPECT_EQ(rows[1][col("error")], "none");
  // Warm-up row is present, marked; a resumed connection has no sigalg.
  EXPECT_EQ(rows[2][col("measured")], "0");
  EXPECT_EQ(rows[2][col("resumed")], "1");
  EXPECT_EQ(rows[2][col("sigalg")], "");
  EXPECT_EQ(rows[1][col("protocol")], "h1");
  EXPECT_EQ(rows[1][col("amplification_limited")], "0");
  EXPECT_EQ(rows[2][col("protocol")], "h3");
  EXPECT_EQ(rows[2][col("connect_us")], "");
  EXPECT_EQ(rows[2][col("initial_datagrams")], "2");
  EXPECT_EQ(rows[2][col("handshake_datagrams_sent")], "4");
  EXPECT_EQ(rows[2][col("handshake_datagrams_received")], "9");
  EXPECT_EQ(rows[2][col("amplification_limited")], "1");
  // Failed connection: undefined phases and timestamps are empty, the detail round-trips.
  EXPECT_EQ(rows[3][col("error")], "tls-alert");
  EXPECT_EQ(rows[3][col("error_detail")], detail);
  EXPECT_EQ(rows[3][col("tls_done_us")], "");
  EXPECT_EQ(rows[3][col("handshake_us")], "");
  EXPECT_EQ(rows[3][col("total_us")], "");
  EXPECT_EQ(rows[3][col("req_status")], "");
  EXPECT_EQ(rows[3][col("connect_us")], "100.000");
}

TEST(SamplesCsv, EmptyResultIsJustTheHeader) {
  std::ostringstream out;
  WriteSamplesCsv(out, LoadResult{});
  EXPECT_EQ(out.str(), std::string(SamplesCsvHeader()) + "\n");
}

TEST(CsvField, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField("cr\r"), "\"cr\r\"");
}

}  // namespace
}  // namespace pqc
