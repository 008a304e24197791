// compare_runs — compare's speed target: two stored runs of one million connections each
// (two trials of 500,000 by default; `bench_compare_runs PER_TRIAL RESAMPLES TRIALS`, e.g.
// 125000 1000 8 for eight trials) compared in under 10 s: every interval over trials, each
// side's design effect from 1000 bootstrap resamples of its connections.
// A benchmark, not a test: it reports, and exits 1 only if the target is missed.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "core/clock.h"
#include "report/run_comparison.h"
#include "results/run_writer.h"

namespace {

// Load: `n` connections whose handshake takes 900 µs plus `extra_ns`, spread over 100 µs.
pqc::LoadResult Load(uint64_t n, pqc::Nanos extra_ns) {
  pqc::LoadResult load;
  load.connections.reserve(n);
  load.requests.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    pqc::ConnectionRecord c;
    c.id = i;
    c.measured = true;
    c.intended_start = static_cast<pqc::Nanos>(i * 3'333);
    c.actual_start = c.intended_start + 20'000;
    c.tcp_established = c.actual_start + 60'000 + static_cast<pqc::Nanos>(i % 97) * 100;
    c.tls_done = c.tcp_established + 900'000 + extra_ns + static_cast<pqc::Nanos>(i % 101) * 1000;
    c.closed = c.tls_done + 200'000;
    c.first_request = static_cast<uint32_t>(i);
    c.request_count = 1;
    c.client_hello_bytes = 1400;
    c.group = "X25519MLKEM768";
    c.cipher = "TLS_AES_256_GCM_SHA384";
    load.connections.push_back(c);
    load.requests.push_back({c.tls_done + 1000, c.tls_done + 90'000, c.tls_done + 95'000, 200, 3});
  }
  return load;
}

bool Write(const std::string& path, const pqc::LoadResult& load, uint32_t trials) {
  pqc::results::RunInfo info;
  info.scenario = info.scenario_file = info.scenario_text = info.title = "bench";
  info.seed = 1;
  auto w = pqc::results::RunWriter::Create(
      path, info,
      {{1, "X25519MLKEM768", {{"group", "X25519MLKEM768"}}, {{"group", "X25519MLKEM768"}}}});
  if (!w) {
    fmt::print(stderr, "{}\n", w.error().message);
    return false;
  }
  for (uint32_t block = 0; block < trials; ++block) {
    pqc::results::TrialRow t;
    t.arm = 1;
    t.block = block;
    t.seq = block;
    t.valid = true;
    t.load = &load;
    if (auto st = w->WriteTrial(t); !st) {
      fmt::print(stderr, "{}\n", st.error().message);
      return false;
    }
  }
  return w->Finish("end", true).ok();
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const uint64_t per_trial = argc > 1 ? std::stoull(argv[1]) : 500'000;
  // A second argument sets the resamples (the target is judged at 1000): the share of the
  // bootstrap in the time, against reading and sorting the connections.
  pqc::report::CompareOptions options;
  options.resamples = argc > 2 ? std::stoi(argv[2]) : 1000;
  const auto trials = static_cast<uint32_t>(argc > 3 ? std::stoul(argv[3]) : 2);
  const fs::path dir = fs::temp_directory_path() / fmt::format("pqc-compare-bench-{}", getpid());
  fs::create_directories(dir);
  const std::string a = (dir / "a.sqlite").string(), b = (dir / "b.sqlite").string();
  if (!Write(a, Load(per_trial, 0), trials) || !Write(b, Load(per_trial, 100'000), trials)) {
    return 2;
  }
  constexpr int kRounds = 3;
  std::vector<double> times;
  for (int round = 0; round < kRounds; ++round) {
    const pqc::Nanos t0 = pqc::MonotonicNow();
    auto c = pqc::report::CompareRuns({a, b}, options);
    const double s = static_cast<double>(pqc::MonotonicNow() - t0) / 1e9;
    if (!c || c->arms.size() != 1 || c->arms[0].versus.empty()) {
      fmt::print(stderr, "compare failed: {}\n", c ? "no matched arm" : c.error().message);
      return 2;
    }
    const auto& p50 = c->arms[0].versus[0].phases[1].statistics[1].difference;
    fmt::print("round {}: {:.2f} s; handshake p50 difference {}\n", round + 1, s, p50.verdict);
    times.push_back(s);
  }
  fs::remove_all(dir);
  std::sort(times.begin(), times.end());
  const double median = times[kRounds / 2];
  fmt::print(
      "two runs of {} trials × {} connections each, {} resamples: median compare {:.2f} s over {} "
      "rounds; target < 10 s: {}\n",
      trials, per_trial, options.resamples, median, kRounds, median < 10 ? "met" : "MISSED");
  return median < 10 ? 0 : 1;
}
