// report_html_test — the HTML report, twice over: its chart specifications and escaping as
// data (no browser), then every fixture summary (tests/data/summary_*.json) written to a file
// and opened in headless Chromium (tests/browser/check_report.mjs), which must render every
// chart with the right number of lines and bars, log no console error and fetch nothing.
// Chromium, Node.js and the npm packages come from scripts/setup.sh; when one is missing the
// browser tests fail and say so, rather than skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "browser_check.h"
#include "report/cell_format.h"
#include "report/chart_scripts.h"
#include "report/chart_specs.h"
#include "report/html_report.h"
#include "report/html_text.h"
#include "report/summary_json.h"
#include "summary_fixtures.h"
#include "test_paths.h"

namespace pqc {
namespace {

namespace fs = std::filesystem;
using browser::Browsed;
using browser::ExpectBrowserTools;
using browser::RunChecker;
using nlohmann::json;

json LoadFixture(const std::string& name) {
  std::ifstream in(fs::path(PQC_TEST_DATA_DIR) / name);
  EXPECT_TRUE(in) << "cannot open fixture " << name;
  return json::parse(in, nullptr, /*allow_exceptions=*/false);
}

// Typed: a fixture (or an edited copy) as the summary every reporter reads.
report::Summary Typed(const json& document) {
  auto summary = report::ReadSummary(nlohmann::ordered_json(document));
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  return summary ? *summary : report::Summary{};
}

std::string Html(const json& summary) {
  std::ostringstream out;
  Status status = WriteHtmlReport(Typed(summary), out);
  EXPECT_TRUE(status.ok()) << status.error().message;
  return out.str();
}

const report::Chart& Find(const std::vector<report::Chart>& charts, const std::string& id) {
  for (const report::Chart& chart : charts) {
    if (chart.id == id) return chart;
  }
  ADD_FAILURE() << "no chart " << id;
  return charts.front();
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// ---- text and escaping ------------------------------------------------------------------

TEST(HtmlText, EscapesMarkupAndQuotes) {
  EXPECT_EQ(report::HtmlEscape("<b>a & \"b\" 'c'</b>"),
            "&lt;b&gt;a &amp; &quot;b&quot; &#39;c&#39;&lt;/b&gt;");
}

TEST(HtmlText, ScriptJsonCannotCloseTheScriptAndParsesBack) {
  json value = {{"title", "</script><script>alert(1)</script><!-- & -->"}};
  std::string text = report::ScriptJson(value);
  EXPECT_EQ(text.find('<'), std::string::npos) << text;
  EXPECT_EQ(text.find('>'), std::string::npos) << text;
  EXPECT_EQ(json::parse(text), value);
}

TEST(HtmlText, ScriptJsonReplacesInvalidUtf8InsteadOfThrowing) {
  json value = std::string("bad \xff byte");
  EXPECT_NO_THROW(report::ScriptJson(value));
}

TEST(HtmlText, FormatsMillisecondsWithMicrosecondPrecision) {
  EXPECT_EQ(report::Ms(890.04), "0.890");
  EXPECT_EQ(report::Ms(151290.0), "151.290");
  EXPECT_EQ(report::Ms(std::nullopt), "–");
  EXPECT_EQ(report::FormatCount(9000), "9,000");
  EXPECT_EQ(report::FormatCount(1234567), "1,234,567");
  EXPECT_EQ(report::FormatCount(12), "12");
}

// ---- chart specifications ---------------------------------------------------------------

TEST(ChartSpecs, FreshStudyDrawsSpectrumBarsAndBytesButNoSweeps) {
  std::vector<report::Chart> charts =
      report::BuildCharts(Typed(LoadFixture("summary_fresh_study.json")));
  ASSERT_EQ(charts.size(), 5u);
  EXPECT_TRUE(Find(charts, "chart-spectrum").drawn());
  EXPECT_EQ(Find(charts, "chart-spectrum").series, 2u);
  EXPECT_EQ(Find(charts, "chart-phases").series, 2u);
  EXPECT_EQ(Find(charts, "chart-bytes").series, 2u);  // one chain, two groups
  EXPECT_FALSE(Find(charts, "chart-rtt").drawn());
  EXPECT_NE(Find(charts, "chart-rtt").omitted.find("network"), std::string::npos);
  EXPECT_FALSE(Find(charts, "chart-payload").drawn());
  // Several phases have spectra, so the spectrum has a phase selector starting on handshake.
  const json& spec = Find(charts, "chart-spectrum").spec;
  ASSERT_TRUE(spec.contains("params"));
  EXPECT_EQ(spec["params"][0]["value"], "handshake");
  EXPECT_EQ(spec["params"][0]["bind"]["options"].size(), 5u);
}

TEST(ChartSpecs, SpectrumPlacesTheTailOnAStretchedAxis) {
  const report::Chart chart = report::SpectrumChart(Typed(LoadFixture("summary_fresh_study.json")));
  const json& rows = chart.spec["data"]["values"];
  bool saw_p999 = false, saw_max = false;
  double deepest = 0;  // the deepest percentile below the maximum (p99.9, or p99.99 with 10^4)
  for (const json& row : rows) {
    if (row["percentile"] != "max") deepest = std::max(deepest, row["x"].get<double>());
  }
  for (const json& row : rows) {
    if (row["percentile"] == "p99.9") {
      EXPECT_NEAR(row["x"].get<double>(), 3.0, 1e-9);
      saw_p999 = true;
    }
    if (row["percentile"] == "max") {
      EXPECT_NEAR(row["x"].get<double>(), std::ceil(deepest - 1e-6) + 1, 1e-9);  // one step past
      saw_max = true;
    }
  }
  EXPECT_TRUE(saw_p999 && saw_max);
  EXPECT_FALSE(chart.spec["encoding"]["y"].contains("scale"));  // 0.7 to 7.5 ms: linear
  // An RTT sweep spans 1 ms to 1.5 s: a log axis keeps the loopback arms readable.
  const report::Chart sweep = report::SpectrumChart(Typed(LoadFixture("summary_rtt_sweep.json")));
  EXPECT_EQ(sweep.spec["encoding"]["y"]["scale"]["type"], "log");
  EXPECT_EQ(sweep.spec["encoding"]["color"]["scale"]["scheme"], "category20");  // 12 arms
}

TEST(ChartSpecs, RttSweepHasOneLinePerChain) {
  const report::Summary summary = Typed(LoadFixture("summary_rtt_sweep.json"));
  const report::Chart rtt = report::RttSweepChart(summary);
  ASSERT_TRUE(rtt.drawn()) << rtt.omitted;
  EXPECT_EQ(rtt.series, 3u);
  EXPECT_EQ(rtt.spec["data"]["values"].size(), 12u);
  EXPECT_FALSE(report::PayloadSweepChart(summary).drawn());
  EXPECT_EQ(report::WireBytesChart(summary).series, 3u);  // three chains, one group
}

TEST(ChartSpecs, PayloadSweepUsesALogAxisAndOneLinePerGroup) {
  const report::Chart chart =
      report::PayloadSweepChart(Typed(LoadFixture("summary_payload_sweep.json")));
  ASSERT_TRUE(chart.drawn()) << chart.omitted;
  EXPECT_EQ(chart.series, 2u);
  EXPECT_EQ(chart.spec["layer"][0]["encoding"]["x"]["scale"]["type"], "log");
}

TEST(ChartSpecs, FailedArmIsLeftOutOfEveryChart) {
  std::vector<report::Chart> charts =
      report::BuildCharts(Typed(LoadFixture("summary_failed_slhdsa.json")));
  EXPECT_EQ(Find(charts, "chart-spectrum").series, 2u);
  EXPECT_EQ(Find(charts, "chart-phases").series, 2u);
  EXPECT_EQ(Find(charts, "chart-bytes").series, 2u);
  EXPECT_EQ(Find(charts, "chart-spectrum").spec.dump().find("slh-dsa"), std::string::npos);
}

TEST(ChartSpecs, NoValidArmOmitsEveryChartWithAReason) {
  json summary = LoadFixture("summary_incomplete.json");
  for (json& arm : summary["arms"]) arm["status"] = "invalid";
  for (const report::Chart& chart : report::BuildCharts(Typed(summary))) {
    EXPECT_FALSE(chart.drawn()) << chart.id;
    EXPECT_FALSE(chart.omitted.empty()) << chart.id;
  }
  std::string html = Html(summary);
  EXPECT_EQ(Count(html, "class=\"omitted\""), 5u);
  EXPECT_EQ(Count(html, "class=\"chart\""), 0u);
}

// ---- the page as text -------------------------------------------------------------------

TEST(HtmlReport, RejectsADocumentThatIsNotASummary) {
  auto status = report::ReadSummary(nlohmann::ordered_json::array({1, 2}));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ErrorKind::kConfig);
  EXPECT_NE(status.error().message.find("pqc-bench/summary/1"), std::string::npos);
  status = report::ReadSummary({{"schema", "pqc-bench/summary/1"}, {"run", 3}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("\"arms\""), std::string::npos);
}

// A hand-edited document is refused with the path of its first bad field, never thrown on
// and never half shown.
TEST(HtmlReport, RefusesMistypedFieldsNamingThem) {
  const json fixture = LoadFixture("summary_fresh_study.json");
  const std::pair<std::string, json> edits[] = {
      {"/factors", "group"},
      {"/arms/0/phases/handshake/p50", "fast"},
      {"/arms/0/phases/handshake/spectrum", {{{"q", "half"}, {"us", nullptr}}}},
      {"/arms/1/bytes", json::array()},
      {"/arms/1/trials", 3},
      {"/comparisons/0/diffs", nullptr},
      {"/run/complete", "yes"}};
  const char* paths[] = {"factors",
                         "arms[0].phases.handshake.p50",
                         "arms[0].phases.handshake.spectrum[0].q",
                         "arms[1].bytes",
                         "arms[1].trials",
                         "comparisons[0].diffs",
                         "run.complete"};
  for (size_t i = 0; i < std::size(edits); ++i) {
    json summary = fixture;
    summary[json::json_pointer(edits[i].first)] = edits[i].second;
    auto typed = report::ReadSummary(nlohmann::ordered_json(summary));
    ASSERT_FALSE(typed.ok()) << edits[i].first;
    EXPECT_EQ(typed.error().kind, ErrorKind::kConfig);
    EXPECT_NE(typed.error().message.find(std::string(paths[i]) + ": expected"), std::string::npos)
        << typed.error().message;
  }
  json missing = fixture;
  missing["arms"][0].erase("cpu");
  auto typed = report::ReadSummary(nlohmann::ordered_json(missing));
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.error().message.find("arms[0].cpu: missing"), std::string::npos)
      << typed.error().message;
}

TEST(HtmlReport, EscapesAHostileTitleAndLabels) {
  std::string html = Html(LoadFixture("summary_script_title.json"));
  // Exactly the report's own five script elements: three libraries, the specs, the renderer.
  EXPECT_EQ(Count(html, "</script>"), 5u);
  EXPECT_EQ(Count(html, "<script"), 5u);
  EXPECT_NE(html.find("<title>Title with &lt;/script&gt;&lt;script&gt;window.__pqcInjected"),
            std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;X25519&lt;/b&gt; &amp; &quot;friends&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<!--"), std::string::npos);
}

// The fixtures come from real runs (tests/data/make_fixtures.sh), so the expected text is
// taken from each fixture's own values: the page must show what the summary says.
TEST(HtmlReport, ShowsRunFactsFailuresAndWarnings) {
  const json fresh_summary = LoadFixture("summary_fresh_study.json");
  const json& run = fresh_summary["run"];
  std::string fresh = Html(fresh_summary);
  EXPECT_EQ(run["complete"], true);
  EXPECT_NE(fresh.find("Complete: " + run["trials_done"].dump() + " of " +
                       run["trials_planned"].dump() + " trials done."),
            std::string::npos);
  for (const char* fact : {"openssl_version", "cpu_model", "kernel", "network", "target"}) {
    ASSERT_TRUE(run[fact].is_string()) << fact << " missing from the summary's run";
    EXPECT_NE(fresh.find("<dd>" + report::HtmlEscape(run[fact].get<std::string>()) + "</dd>"),
              std::string::npos)
        << fact;
  }
  // The findings come before the tables, each sentence with its interval.
  const size_t findings = fresh.find("<ul id=\"findings\">");
  ASSERT_NE(findings, std::string::npos);
  EXPECT_LT(findings, fresh.find("<table id=\"arms\">"));
  EXPECT_NE(fresh.find("<li>X25519MLKEM768 vs X25519: handshake p50 no difference detectable "
                       "above ±0.525 ms"),
            std::string::npos);
  EXPECT_NE(fresh.find("how sure: variance between trials (p50)"), std::string::npos);
  // run.network was once printed by the report but never written by the summary.
  EXPECT_EQ(run["network"], "loopback (no emulation)");
  EXPECT_EQ(fresh.find("<dt>network</dt><dd>–</dd>"), std::string::npos);
  // Every comparison's verdict, in the tool's form ("+0.410 ms [0.360, 0.470]" or "no
  // difference detectable above ±0.050 ms").
  ASSERT_FALSE(fresh_summary["comparisons"].empty());
  for (const json& c : fresh_summary["comparisons"]) {
    for (const auto& [stat, d] : c["diffs"].items()) {
      const std::string verdict = d["verdict"];
      EXPECT_TRUE(verdict.find(" ms [") != std::string::npos ||
                  verdict.starts_with("no difference detectable above ±"))
          << verdict;
      EXPECT_NE(fresh.find(report::HtmlEscape(verdict)), std::string::npos) << verdict;
    }
  }
  for (const json& arm : fresh_summary["arms"]) {
    const double p50 = arm["phases"]["handshake"]["p50"];
    EXPECT_NE(fresh.find(">" + report::Ms(p50) + "<"), std::string::npos) << arm["label"];
    for (const json& o : arm["outliers"]) {  // real runs may have none; each one is shown
      EXPECT_NE(fresh.find(report::HtmlEscape(o["reason"].get<std::string>())), std::string::npos);
    }
  }

  std::string failed = Html(LoadFixture("summary_failed_slhdsa.json"));
  EXPECT_NE(failed.find("unknown certificate type"), std::string::npos);
  EXPECT_NE(failed.find("class=\"status-failed\""), std::string::npos);
  EXPECT_NE(failed.find("Not in the charts, having no valid trial: slh-dsa-sha2-128f (failed)."),
            std::string::npos);

  const json incomplete_summary = LoadFixture("summary_incomplete.json");
  std::string incomplete = Html(incomplete_summary);
  EXPECT_EQ(incomplete_summary["run"]["complete"], false);
  EXPECT_NE(incomplete.find("INCOMPLETE: " + incomplete_summary["run"]["trials_done"].dump() +
                            " of 6 trials done."),
            std::string::npos);
  size_t invalid = 0;
  for (const json& t : incomplete_summary["trials"]) {
    if (t["valid"] == true) continue;
    ++invalid;
    for (const json& r : t["reasons"]) {
      EXPECT_NE(incomplete.find(report::HtmlEscape(r.get<std::string>())), std::string::npos) << r;
    }
  }
  EXPECT_GE(invalid, 1u) << "the resume arm against a server without tickets is invalid";
  EXPECT_NE(incomplete.find("no valid trial"), std::string::npos);
}

TEST(HtmlReport, AStudyThatStoppedItselfShowsEveryAnswer) {
  const json fixture = LoadFixture("summary_stopped_study.json");
  const std::string html = Html(fixture);
  ASSERT_TRUE(fixture["stop"].is_object());
  EXPECT_NE(html.find("<h2>A study that stopped itself</h2>"), std::string::npos);
  EXPECT_NE(html.find(report::HtmlEscape("The study stopped itself after " +
                                         std::to_string(fixture["stop"]["blocks"].get<int>()) +
                                         " blocks")),
            std::string::npos);
  for (const json& a : fixture["stop"]["answers"]) {
    EXPECT_NE(html.find(report::HtmlEscape(a["question"].get<std::string>() + ": ")),
              std::string::npos)
        << a["question"];
  }
  const std::string fixed = Html(LoadFixture("summary_fresh_study.json"));
  EXPECT_EQ(fixed.find("A study that stopped itself"), std::string::npos)
      << "a study of fixed size has no such section";
}

TEST(HtmlReport, EmbedsTheChartLibrariesAndNoNetworkAddress) {
  ASSERT_EQ(ChartScripts().size(), 3u);
  std::string html = Html(LoadFixture("summary_fresh_study.json"));
  for (const ChartScript& script : ChartScripts()) {
    EXPECT_GT(script.text.size(), 10000u) << script.name;
    EXPECT_NE(html.find(script.text), std::string::npos) << script.name;
  }
  EXPECT_EQ(html.find("sourceMappingURL"), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
}

// ---- in headless Chromium ---------------------------------------------------------------

// Browse: writes the report for `fixture` (build/tests/report_html/<fixture>.html) and checks
// it in the browser, leaving the screenshot beside it.
Browsed Browse(const std::string& fixture) {
  std::string stem = fs::path(fixture).stem().string();
  fs::path html = browser::BrowserOutDir() / (stem + ".html");
  {
    std::ofstream out(html);
    Status status = WriteHtmlReport(Typed(LoadFixture(fixture)), out);
    EXPECT_TRUE(status.ok()) << status.error().message;
  }
  return RunChecker(html, browser::BrowserOutDir() / (stem + ".png"));
}

// The checker itself must notice what it is there to catch: a page that fetches a file and
// logs an error (no Content-Security-Policy here, so the request reaches the router).
TEST(BrowserChecker, CatchesRequestsAndConsoleErrors) {
  ExpectBrowserTools();
  if (HasFatalFailure()) return;
  fs::path html = browser::BrowserOutDir() / "checker_negative.html";
  {
    std::ofstream out(html);
    out << "<!DOCTYPE html><html><head><title>negative</title></head><body>"
           "<img src=\"missing-picture.png\"><script>console.error('deliberate');</script>"
           "</body></html>\n";
  }
  Browsed browsed = RunChecker(html, browser::BrowserOutDir() / "checker_negative.png");
  ASSERT_TRUE(browsed.result.is_object()) << browsed.stderr_text;
  EXPECT_EQ(browsed.exit_code, 1);
  EXPECT_FALSE(browsed.result["ok"].get<bool>());
  const json& errors = browsed.result["consoleErrors"];  // also "Failed to load resource"
  EXPECT_NE(std::find(errors.begin(), errors.end(), "deliberate"), errors.end()) << errors;
  ASSERT_EQ(browsed.result["blockedRequests"].size(), 1u);
  EXPECT_NE(browsed.result["blockedRequests"][0].get<std::string>().find("missing-picture.png"),
            std::string::npos);
  EXPECT_EQ(browsed.result["chartsReady"], "no window.pqcChartsReady");
}

class BrowserTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ExpectBrowserTools(); }
};

TEST_P(BrowserTest, RendersEveryChartOfflineWithoutErrors) {
  std::string fixture = GetParam();
  std::vector<report::Chart> charts = report::BuildCharts(Typed(LoadFixture(fixture)));
  Browsed browsed = Browse(fixture);
  json r = browsed.result;  // not const: a missing key reads as null instead of asserting
  ASSERT_TRUE(r.is_object()) << "no result from check_report.mjs (exit " << browsed.exit_code
                             << "): " << browsed.stderr_text;
  EXPECT_EQ(browsed.exit_code, 0) << r.dump(1) << browsed.stderr_text;
  EXPECT_FALSE(r.contains("exception")) << r.value("exception", "");
  EXPECT_EQ(r["consoleErrors"], json::array()) << r["consoleErrors"].dump(1);
  EXPECT_EQ(r["pageErrors"], json::array()) << r["pageErrors"].dump(1);
  EXPECT_EQ(r["blockedRequests"], json::array()) << r["blockedRequests"].dump(1);
  EXPECT_EQ(r["failedRequests"], json::array()) << r["failedRequests"].dump(1);

  size_t drawn = 0;
  for (const report::Chart& chart : charts) {
    if (!chart.drawn()) {
      EXPECT_NE(std::find(r["omitted"].begin(), r["omitted"].end(), chart.id + "-omitted"),
                r["omitted"].end())
          << chart.id;
      continue;
    }
    ++drawn;
    ASSERT_TRUE(r["charts"].contains(chart.id)) << chart.id;
    const json& c = r["charts"][chart.id];
    SCOPED_TRACE(chart.id + ": " + c.dump());
    EXPECT_TRUE(c["rendered"].get<bool>());
    EXPECT_EQ(c["svg"].get<int>(), 1);
    EXPECT_GT(c["height"].get<double>(), 100);
    if (chart.id == "chart-spectrum" || chart.id == "chart-rtt" || chart.id == "chart-payload") {
      EXPECT_EQ(c["lines"].get<size_t>(), chart.series);  // one line per arm or series
      EXPECT_GT(c["symbols"].get<size_t>(), chart.series);
    }
    if (chart.id == "chart-phases") {
      // p50 and p99 bars for every arm in every phase panel, each with its interval where the
      // summary has one (too few samples for a p99 interval leave it null: no rule).
      size_t bars = chart.spec["data"]["values"].size(), intervals = 0;
      for (const json& row : chart.spec["data"]["values"]) {
        intervals += !row["lo"].is_null() && !row["hi"].is_null() ? 1 : 0;
      }
      EXPECT_EQ(c["rects"].get<size_t>(), bars);
      EXPECT_EQ(c["rules"].get<size_t>(), intervals);
    }
    if (chart.id == "chart-bytes") {
      EXPECT_GE(c["rects"].get<size_t>(), 4 * chart.series);  // ClientHello + 3 server messages
      EXPECT_EQ(c["rules"].get<size_t>(), 1u);                // the initial window
    }
  }
  EXPECT_EQ(r["chartsReady"], drawn);
  EXPECT_EQ(r["charts"].size(), drawn);
  EXPECT_EQ(r["scripts"], 5);
  EXPECT_TRUE(r["injected"].is_null()) << "text from the summary ran as script";
  // What each fixture is about, as a reader sees it.
  json summary = LoadFixture(fixture);
  if (fixture == "summary_script_title.json") {
    std::string title = summary["run"]["title"];
    EXPECT_EQ(r["title"], title);  // shown literally, in the tab and the heading
    EXPECT_EQ(r["h1"], title);
  }
  if (fixture == "summary_failed_slhdsa.json") {
    EXPECT_EQ(r["armRows"], 3);
    ASSERT_EQ(r["failureRows"].size(), 1u);
    EXPECT_NE(r["failureRows"][0].get<std::string>().find("unknown certificate type"),
              std::string::npos);
  }
  if (fixture == "summary_incomplete.json") {
    EXPECT_EQ(r["banner"].get<std::string>().rfind("INCOMPLETE", 0), 0u);
    EXPECT_GE(r["warnings"].get<int>(), 1);
  } else {
    EXPECT_EQ(r["banner"].get<std::string>().rfind("Complete", 0), 0u);
  }
  std::string png = r.value("screenshot", "");
  ASSERT_TRUE(fs::exists(png)) << "no screenshot";
  EXPECT_GT(fs::file_size(png), 20000u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BrowserTest, kSummaryFixtures, SummaryFixtureName);

}  // namespace
}  // namespace pqc
