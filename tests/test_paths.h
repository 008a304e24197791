// Where the tests find the tool, the peers and the checkout's files.
//
// The values are compiled into one generated object (test_paths.cc in the build tree, written
// by tests/CMakeLists.txt), not passed to every test as -D definitions: a test's own
// translation units then hold no path of the checkout or of its build tree, so the compiler
// cache serves a fresh clone (CI's, a contributor's second checkout) what another clone
// compiled. With the paths in the flags, a new clone recompiled every test.
#ifndef PQC_TESTS_TEST_PATHS_H_
#define PQC_TESTS_TEST_PATHS_H_

namespace pqc::test_paths {

extern const char* const kBenchBin;       // this build tree's pqc-bench
extern const char* const kSourceDir;      // the checkout's root
extern const char* const kTestDataDir;    // tests/data
extern const char* const kCorpusDir;      // fuzz/corpus/client_hello
extern const char* const kBrowserScript;  // tests/browser/check_report.mjs
extern const char* const kReportOutDir;   // where the browser tests leave their pages
extern const char* const kWebModulesDir;  // node_modules with playwright-core (set-up cache)
extern const char* const kNode;           // node, or "" when CMake found none
extern const char* const kChromium;       // chromium, or "" when CMake found none
extern const char* const kNginxBin;       // the set-up's nginx
extern const char* const kHaproxyBin;     // the set-up's HAProxy
extern const char* const kOpensslBin;     // the tool's OpenSSL's `openssl` program

}  // namespace pqc::test_paths

// The names the tests have always used.
#define PQC_BENCH_BIN (::pqc::test_paths::kBenchBin)
#define PQC_SOURCE_DIR (::pqc::test_paths::kSourceDir)
#define PQC_TEST_DATA_DIR (::pqc::test_paths::kTestDataDir)
#define PQC_CORPUS_DIR (::pqc::test_paths::kCorpusDir)
#define PQC_BROWSER_SCRIPT (::pqc::test_paths::kBrowserScript)
#define PQC_REPORT_OUT_DIR (::pqc::test_paths::kReportOutDir)
#define PQC_WEB_MODULES_DIR (::pqc::test_paths::kWebModulesDir)
#define PQC_NODE (::pqc::test_paths::kNode)
#define PQC_CHROMIUM (::pqc::test_paths::kChromium)
#define PQC_NGINX_BIN (::pqc::test_paths::kNginxBin)
#define PQC_HAPROXY_BIN (::pqc::test_paths::kHaproxyBin)
#define PQC_OPENSSL_BIN (::pqc::test_paths::kOpensslBin)

#endif  // PQC_TESTS_TEST_PATHS_H_
