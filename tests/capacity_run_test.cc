// capacity_run_test — `pqc-bench run` end to end on a tiny capacity scenario (closed loop,
// one server thread, 1-second trials, classical vs ML-DSA-44 with a hybrid group): the
// crypto floors are measured and stored, and the report names each arm's cost as "X % more
// (or less) server CPU per handshake than classical". Timings are not asserted: the machine
// is shared.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// TempDir: a fresh directory, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "pqc-capacity-run-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  fs::path path() const { return path_; }

 private:
  std::string path_;
};

// RunBench: `pqc-bench ARGS...`, stdout and stderr into files under `dir`; the exit status, or -1
// when it had to be killed after `limit`.
int RunBench(const std::vector<std::string>& args, const fs::path& dir,
             std::chrono::seconds limit) {
  std::vector<std::string> all = {PQC_BENCH_BIN};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out = (dir / "stdout.txt").string(), err = (dir / "stderr.txt").string();
  const pid_t pid = fork();
  if (pid == 0) {
    if (std::freopen(out.c_str(), "w", stdout) == nullptr ||
        std::freopen(err.c_str(), "w", stderr) == nullptr) {
      _exit(127);
    }
    execv(PQC_BENCH_BIN, argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
  const fs::path scenario = tmp.path() / "cap.toml";
  std::ofstream(scenario) << kScenario;
  const fs::path results = tmp.path() / "results";
  const int rc = RunBench({"run", scenario.string(), "--results", results.string()}, tmp.path(),
                          std::chrono::seconds(120));
  const std::string out = ReadAll(tmp.path() / "stdout.txt");
  const std::string err = ReadAll(tmp.path() / "stderr.txt");
  ASSERT_EQ(rc, 0) << out << err;
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
