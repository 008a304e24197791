// Bad input and a hostile environment, through the real binary: each case must end with a
// clear message (what, where, and what would be valid or what to do), a non-zero exit and no
// crash — and, where it can be known in advance, before any connection or trial.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_child.h"
#include "fault_peer.h"
#include "scenario/arm_settings.h"
#include "test_paths.h"

namespace pqc {
namespace {

namespace fs = std::filesystem;

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// ExpectCleanFailure: a non-zero exit of its own (not a signal, not the test's kill).
void ExpectCleanFailure(const test::BenchExit& e, int code) {
  EXPECT_FALSE(e.timed_out) << e.output;
  EXPECT_EQ(e.code, code) << e.output;
}

// TinyScenario: one arm, fresh, `rate` per second for 1 s.
std::string TinyScenario(int rate, const std::string& extra = {}) {
  return "title = \"bad input\"\n" + extra +
         "[tls]\nchain = \"ecdsa-p256\"\ngroup = \"X25519\"\n"
         "[load]\nmode = \"fresh\"\nrate = " +
         std::to_string(rate) +
         "\nduration = \"1s\"\nwarmup = \"0s\"\nmax_lag_p99 = \"1s\"\n"
         "[trials]\ncount = 1\n";
}

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = tmp_.path(); }
  test::BenchExit Run(const std::vector<std::string>& args, const std::string& shell_prefix = {},
                      const std::vector<std::string>& wrapper = {}, int limit_s = 30) {
    return test::WaitBench(test::SpawnBench(args, dir_, shell_prefix, wrapper),
                           std::chrono::seconds(limit_s));
  }
  test::TempDir tmp_{"bad-input"};
  std::string dir_;
};

TEST_F(BadInputTest, LoadRefusesAFileLimitBelowItsWorstCase) {
  const std::string target = test::ClosedPort().ToString();
  // 100/s × 10 s timeout = 1,000 connections may be open at once: 1,067 descriptors.
  test::BenchExit e = Run({"load", "--target", target, "--rate", "100", "--timeout", "10s",
                           "--duration", "1s", "--groups", "X25519"},
                          "ulimit -n 64");
  ExpectCleanFailure(e, 2);
  EXPECT_LT(e.seconds, 5.0) << "refused before the schedule, not after it";
  EXPECT_TRUE(Contains(e.output, "up to 1000 connections")) << e.output;
  EXPECT_TRUE(Contains(e.output, "the limit is 64")) << e.output;
  EXPECT_TRUE(Contains(e.output, "`ulimit -n 1067`")) << e.output;
  EXPECT_FALSE(Contains(e.output, "negotiated (")) << "no summary: nothing ran\n" << e.output;

  // Keep-alive connections stay open for their requests' think time too: 10/s × (1 s + 10 ×
  // 1 s) = 110 connections, 177 descriptors.
  e = Run({"load", "--target", target, "--mode", "reuse", "--requests", "10", "--request-interval",
           "1s", "--rate", "10", "--timeout", "1s", "--duration", "1s", "--groups", "X25519"},
          "ulimit -n 128");
  ExpectCleanFailure(e, 2);
  EXPECT_TRUE(Contains(e.output, "up to 110 connections")) << e.output;
  EXPECT_TRUE(Contains(e.output, "`ulimit -n 177`")) << e.output;

  // --max-inflight bounds the worst case: 50 + 67 fits 128, and the load runs (into a closed
  // port: measured, invalid, exit 1 — not refused for descriptors).
  e = Run({"load", "--target", target, "--rate", "100", "--timeout", "10s", "--duration", "1s",
           "--warmup", "0s", "--max-inflight", "50", "--groups", "X25519"},
          "ulimit -n 128");
  ExpectCleanFailure(e, 1);
  EXPECT_FALSE(Contains(e.output, "ulimit")) << e.output;
}

TEST_F(BadInputTest, RunRefusesAFileLimitBelowAnArmsWorstCaseBeforeAnyTrial) {
  const std::string file = dir_ + "/fds.toml";
  WriteFile(file, TinyScenario(50));  // 50/s × 10 s default timeout: 567 descriptors
  const std::string root = dir_ + "/results";
  test::BenchExit e = Run({"run", file, "--results", root}, "ulimit -n 256");
  ExpectCleanFailure(e, 2);
  EXPECT_TRUE(Contains(e.output, file)) << e.output;
  EXPECT_TRUE(Contains(e.output, "arm 'base'")) << e.output;
  EXPECT_TRUE(Contains(e.output, "`ulimit -n 567`")) << e.output;
  EXPECT_FALSE(fs::exists(root)) << "no results directory for a run that cannot start";
}

TEST_F(BadInputTest, ServeOnAPortInUseSaysSo) {
  auto first = test::SpawnBench({"serve", "--listen", "127.0.0.1:0"}, dir_);
  const SocketAddress addr = test::ServeAddress(first);
  ASSERT_NE(addr.len, 0u);
  test::BenchExit e = Run({"serve", "--listen", addr.ToString()});
  EXPECT_NE(e.code, 0) << e.output;
  EXPECT_LT(e.code, 128) << "a clean exit, not a crash: " << e.output;
  EXPECT_TRUE(Contains(e.output, addr.ToString())) << e.output;
  EXPECT_TRUE(Contains(e.output, "in use")) << e.output;
  if (fs::exists(PQC_NGINX_BIN)) {
    test::BenchExit n = Run({"serve", "--nginx", "--nginx-exe", PQC_NGINX_BIN, "--listen",
                             addr.ToString(), "--work-dir", dir_ + "/nginx"});
    EXPECT_NE(n.code, 0) << n.output;
    EXPECT_LT(n.code, 128) << n.output;
    EXPECT_TRUE(Contains(n.output, addr.ToString())) << n.output;
    EXPECT_TRUE(Contains(n.output, "in use")) << n.output;
  }
  kill(first.pid, SIGTERM);
  EXPECT_EQ(test::WaitBench(first, std::chrono::seconds(10)).code, 0);
}

TEST_F(BadInputTest, LoadToAnUnroutableAddressFailsEveryConnectionClearly) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a private network namespace (unshare -n)";
  // 198.18.0.0/15 in a new, empty network namespace: nothing can leave this machine. First
  // with no route at all (connect fails at once), then with the range routed into loopback,
  // where the SYNs vanish (the client's timeout must end each connection).
  const std::vector<std::string> netns = {"/usr/bin/unshare", "--net"};
  const std::vector<std::string> args = {
      "load",       "--target", "198.18.0.1:443", "--rate", "20",
      "--duration", "1s",       "--warmup",       "0s",     "--timeout",
      "500ms",      "--groups", "X25519",         "--json", dir_ + "/unroutable.json"};
  test::BenchExit e = Run(args, "true", netns);
  ExpectCleanFailure(e, 1);
  EXPECT_TRUE(Contains(e.output, "198.18.0.1:443")) << e.output;
  EXPECT_TRUE(Contains(e.output, "unreachable")) << e.output;
  auto j = nlohmann::json::parse(test::ReadFile(dir_ + "/unroutable.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << e.output;
  EXPECT_EQ(j["errors"]["by_class"]["connect"], j["connections"]) << j["errors"].dump();

  e = Run(args, "ip link set lo up && ip route add 198.18.0.0/15 dev lo", netns);
  ExpectCleanFailure(e, 1);
  EXPECT_LT(e.seconds, 1.0 + 0.5 + 5.0) << "the timeout ends the blackholed connections";
  j = nlohmann::json::parse(test::ReadFile(dir_ + "/unroutable.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << e.output;
  EXPECT_EQ(j["errors"]["by_class"]["timeout"], j["connections"]) << j["errors"].dump();
  EXPECT_TRUE(Contains(e.output, "timeout")) << e.output;
}

TEST_F(BadInputTest, RunWithAnExternalTargetThatIsNotThereStopsBeforeAnyTrial) {
  const std::string address = test::ClosedPort().ToString();
  const std::string file = dir_ + "/external.toml";
  WriteFile(file,
            TinyScenario(10, "[target]\nkind = \"external\"\naddress = \"" + address + "\"\n"));
  const std::string root = dir_ + "/results";
  test::BenchExit e = Run({"run", file, "--results", root});
  ExpectCleanFailure(e, 3);
  EXPECT_LT(e.seconds, 10.0) << "one short check, not a wait per arm";
  EXPECT_TRUE(Contains(e.output, file)) << e.output;
  EXPECT_TRUE(Contains(e.output, address)) << e.output;
  EXPECT_TRUE(Contains(e.output, "does not accept connections")) << e.output;
  EXPECT_FALSE(fs::exists(root)) << "no results directory for a run that cannot start";
}

TEST_F(BadInputTest, ResultsOnAReadOnlyFileSystemFailBeforeAnyTrial) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to mount a read-only tmpfs (root ignores chmod, so a mount it is)";
  }
  const std::string file = dir_ + "/ro.toml";
  WriteFile(file, TinyScenario(10));
  const std::string ro = dir_ + "/ro";
  fs::create_directories(ro);
  // In a private mount namespace: the mount vanishes with the child, whatever happens.
  test::BenchExit e =
      Run({"run", file, "--results", ro + "/results"}, "mount -t tmpfs -o ro,size=1m pqc-ro " + ro,
          {"/usr/bin/unshare", "--mount"});
  ExpectCleanFailure(e, 3);
  EXPECT_TRUE(Contains(e.output, ro + "/results")) << e.output;
  EXPECT_TRUE(Contains(e.output, "Read-only file system")) << e.output;
  EXPECT_TRUE(Contains(e.output, "--results")) << "says what to do: " << e.output;
  EXPECT_FALSE(Contains(e.output, "[1/1]")) << "no trial started: " << e.output;
}

TEST_F(BadInputTest, ReportOnEmptyForeignAndTruncatedDatabases) {
  // A real results database first (one short trial), then damaged copies of it.
  const std::string file = dir_ + "/real.toml";
  WriteFile(file, TinyScenario(50));
  const std::string root = dir_ + "/results";
  test::BenchExit made = Run({"run", file, "--results", root}, {}, {}, 60);
  ASSERT_EQ(made.code, 0) << made.output;
  std::string real;
  for (const auto& d : fs::directory_iterator(root)) real = d.path().string() + "/results.sqlite";
  ASSERT_TRUE(fs::exists(real));
  const std::string bytes = test::ReadFile(real);
  ASSERT_GT(bytes.size(), 16'384u) << "several pages, so that a cut loses tables";

  const std::string empty = dir_ + "/empty.sqlite";
  WriteFile(empty, "");
  const std::string png = dir_ + "/image.sqlite";
  // A PNG's signature and IHDR chunk header, then zeros (the array's size counts the NULs).
  static constexpr char kPng[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
  WriteFile(png, std::string(kPng, sizeof kPng - 1) + std::string(200, '\0'));
  const std::string cut = dir_ + "/truncated.sqlite";
  WriteFile(cut, bytes.substr(0, bytes.size() / 3));
  // Only the last tenth missing: the schema and the run are intact, the last pages (the
  // requests) are not. This one used to be reported, silently without ttfb and response.
  const std::string tail_cut = dir_ + "/tail-truncated.sqlite";
  WriteFile(tail_cut, bytes.substr(0, bytes.size() - bytes.size() / 10));

  for (const std::string& path : {empty, png, cut, tail_cut}) {
    SCOPED_TRACE(path);
    test::BenchExit e = Run({"report", path, "--format", "json"});
    EXPECT_FALSE(e.timed_out);
    EXPECT_NE(e.code, 0) << e.output;
    EXPECT_LT(e.code, 128) << "no crash: " << e.output;
    EXPECT_TRUE(Contains(e.output, path)) << "names the file: " << e.output;
    EXPECT_TRUE(Contains(e.output, "not a pqc-bench results database") ||
                Contains(e.output, "corrupt"))
        << e.output;
  }
  // The empty file is left as it was: report never writes into what it is given.
  EXPECT_EQ(fs::file_size(empty), 0u);
}

// load's arm flags come from the scenario's key table: each key with a flag is in `load
// --help` with the scenario's default, and a bad value is refused by that key's own parser
// with CLI11's usage message naming the flag, before any connection (exit 2).
TEST_F(BadInputTest, LoadFlagsAreTheScenarioKeysWithTheirDefaultsAndChecks) {
  test::BenchExit help = Run({"load", "--help"});
  ASSERT_EQ(help.code, 0) << help.output;
  size_t bound = 0;
  for (const scenario::SettingKey& k : scenario::SettingKeys()) {
    if (k.load_flag.empty()) continue;
    ++bound;
    SCOPED_TRACE(std::string(k.name));
    const std::string flag(k.load_flag.substr(0, k.load_flag.find(',')));
    EXPECT_TRUE(Contains(help.output, flag)) << help.output;
    EXPECT_TRUE(Contains(help.output, "(scenario key " + std::string(k.name) + ")") ||
                k.name == "group" || k.name == "requests")
        << help.output;
    if (!k.boolean) {
      const nlohmann::json d = k.echo(scenario::ArmSettings{});
      const std::string shown = d.is_string() ? d.get<std::string>() : d.dump();
      if (!shown.empty()) {
        EXPECT_TRUE(Contains(help.output, "=" + shown)) << help.output;
      }
    }
  }
  EXPECT_GE(bound, 15u);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--duration", "5"}, "--duration"},
      {{"--rate", "-3"}, "--rate"},
      {{"--mode", "resum"}, "unknown mode 'resum'"},
      {{"--groups", "X25519MLKEM76"}, "X25519MLKEM768"},
      {{"--arrivals", "bursty"}, "valid: uniform, poisson"},
      {{"--max-error-rate", "150%"}, "--max-error-rate"},
      {{"--groups", "X25519", "--group", "X25519MLKEM768"}, "does not offer"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"load", "--target", "127.0.0.1:9"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    SCOPED_TRACE(c.args.front() + " " + c.args[1]);
    test::BenchExit e = Run(args);
    ExpectCleanFailure(e, 2);
    EXPECT_TRUE(Contains(e.output, c.says)) << e.output;
  }
}

// compare: a gate it cannot read and a run that is not there are refused before anything is
// computed, each naming what was wrong and what is valid.
TEST_F(BadInputTest, CompareRefusesABadGateAndAMissingRun) {
  test::BenchExit gate = Run({"compare", "a", "b", "--fail-if", "handshake.p42 > +5%"});
  ExpectCleanFailure(gate, 2);
  EXPECT_TRUE(Contains(gate.output, "unknown statistic 'p42'")) << gate.output;
  EXPECT_TRUE(Contains(gate.output, "statistics: mean, p50, p95, p99")) << gate.output;
  const std::string missing = dir_ + "/no-such-run";
  test::BenchExit run = Run({"compare", missing, missing});
  EXPECT_FALSE(run.timed_out);
  EXPECT_NE(run.code, 0) << run.output;
  EXPECT_LT(run.code, 128) << run.output;
  EXPECT_TRUE(Contains(run.output, missing)) << run.output;
  test::BenchExit one = Run({"compare", missing});
  ExpectCleanFailure(one, 2);
  EXPECT_TRUE(Contains(one.output, "two runs or more")) << one.output;
}

}  // namespace
}  // namespace pqc
