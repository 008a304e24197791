// capacity_run_test — `pqc-bench run` end to end on a tiny capacity scenario (closed loop,
// one server thread, 1-second trials, classical vs ML-DSA-44 with a hybrid group): the
// crypto floors are measured and stored, and the report names each arm's cost as "X % more
// (or less) server CPU per handshake than classical". Timings are not asserted: the machine
// is shared.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_child.h"

namespace {

namespace fs = std::filesystem;

using pqc::test::TempDir;

std::string ReadAll(const fs::path& path) {
  return pqc::test::ReadFile(path.string());
}

constexpr const char* kScenario = R"(title = "capacity_run_test"
[target]
kind = "embedded"
server_threads = 1
[tls]
group = "X25519"
[load]
mode = "fresh"
closed_loop = 8
duration = "1s"
warmup = "500ms"
max_error_rate = "5%"
[trials]
count = 1
seed = 9
[matrix]
arm = [
  { value = "classical", group = "X25519", chain = "ecdsa-p256" },
  { value = "pq", group = "X25519MLKEM768", chain = "ml-dsa-44" },
]
)";

TEST(CapacityRun, ReportNamesTheCostAgainstClassical) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const fs::path scenario = fs::path(tmp.path()) / "cap.toml";
  std::ofstream(scenario) << kScenario;
  const fs::path results = fs::path(tmp.path()) / "results";
  const pqc::test::BenchExit run = pqc::test::WaitBench(
      pqc::test::SpawnBenchApart({"run", scenario.string(), "--results", results.string()},
                                 tmp.path()),
      std::chrono::seconds(120));
  const std::string& out = run.output;
  const std::string& err = run.errors;
  ASSERT_EQ(run.code, 0) << out << err;
  EXPECT_NE(err.find("crypto floors:"), std::string::npos) << err;
  EXPECT_NE(out.find("Server capacity: handshakes/s per server core"), std::string::npos) << out;
  EXPECT_NE(out.find("server CPU per handshake than classical"), std::string::npos) << out;

  fs::path dir;
  for (const auto& e : fs::directory_iterator(results)) dir = e.path();
  ASSERT_FALSE(dir.empty());
  const auto summary = nlohmann::json::parse(ReadAll(dir / "summary.json"));
  for (const auto& arm : summary["arms"]) {
    EXPECT_TRUE(arm["cpu"]["floor_server_us"].is_number()) << arm.dump();
    EXPECT_TRUE(arm["cpu"]["server_floor_ratio"].is_number()) << arm.dump();
  }
  const auto& cap = summary["capacity"]["arms"];
  ASSERT_EQ(cap.size(), 2u);
  EXPECT_EQ(cap[0]["line"], "classical baseline");
  EXPECT_EQ(cap[1]["baseline"], 1);
  EXPECT_TRUE(cap[1]["more_cpu_pct"]["estimate"].is_number()) << cap.dump();
  EXPECT_GT(cap[1]["handshakes_per_core_s"]["estimate"].get<double>(), 0);
  const std::string md = ReadAll(dir / "summary.md");
  EXPECT_NE(md.find("server CPU per handshake than classical"), std::string::npos);
  const std::string html = ReadAll(dir / "report.html");
  EXPECT_NE(html.find("id=\"capacity\""), std::string::npos);
  EXPECT_NE(html.find("id=\"cpu-floor\""), std::string::npos);
}

}  // namespace
