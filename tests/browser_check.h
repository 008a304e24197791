// browser_check — opens a page pqc-bench wrote in Debian's headless Chromium through
// tests/browser/check_report.mjs and returns what it saw (charts rendered and their marks,
// console errors, blocked requests), for the report's and compare's HTML tests. Chromium,
// Node.js and the npm packages come from scripts/setup.sh; a missing one fails the test that
// needs it (ExpectBrowserTools), never skips it.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace pqc::browser {

struct Browsed {
  int exit_code = -1;
  nlohmann::json result;
  std::string stderr_text;
};

// RunChecker: check_report.mjs on `html`, its JSON result and exit status; the screenshot
// goes to `png`.
Browsed RunChecker(const std::filesystem::path& html, const std::filesystem::path& png);

// BrowserOutDir: where the tests leave their pages and screenshots (made if missing).
std::filesystem::path BrowserOutDir();

// ExpectBrowserTools: a fatal failure naming what is missing and how to install it.
void ExpectBrowserTools();

}  // namespace pqc::browser
