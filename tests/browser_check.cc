#include "browser_check.h"
#include "test_paths.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace pqc::browser {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Browsed RunChecker(const fs::path& html, const fs::path& png) {
  Browsed browsed;
  fs::path out_file = fs::path(html).replace_extension(".out.json");
  fs::path err_file = fs::path(html).replace_extension(".err.txt");
  fs::remove(png);
  std::vector<std::string> args = {
      PQC_NODE,     PQC_BROWSER_SCRIPT, "--modules",   PQC_WEB_MODULES_DIR, "--chromium",
      PQC_CHROMIUM, "--report",         html.string(), "--screenshot",      png.string()};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    browsed.stderr_text = "could not start " + args[0] + ": " + strerror(rc);
    return browsed;
  }
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);  // check_report.mjs ends itself after 60 s at most
  browsed.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  browsed.stderr_text = ReadFile(err_file);
  browsed.result = json::parse(ReadFile(out_file), nullptr, /*allow_exceptions=*/false);
  return browsed;
}

fs::path BrowserOutDir() {
  fs::path dir = fs::path(PQC_REPORT_OUT_DIR);
  fs::create_directories(dir);
  return dir;
}

void ExpectBrowserTools() {
  // Missing tools are a failed set-up, not a reason to skip: scripts/setup.sh installs them.
  for (const auto& [what, path] :
       {std::pair<std::string, std::string>{"Node.js (node)", PQC_NODE},
        {"Chromium", PQC_CHROMIUM},
        {"playwright-core", std::string(PQC_WEB_MODULES_DIR) + "/playwright-core"}}) {
    ASSERT_TRUE(fs::exists(path)) << what << " not found at '" << path
                                  << "': run scripts/setup.sh (it installs Chromium from "
                                     "Debian and the npm packages of web/package.json)";
  }
}

}  // namespace pqc::browser
