// probe documents and their comparison: the writer and reader agree, bad documents are refused
// with the field that is wrong, two builds' probes are compared layer by layer (the fixtures
// are real probes of OpenSSL 3.5.7 and 3.6.3, with their cache paths replaced), and the
// binary's `compare A.json B.json` and `probe --compare` say so.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench_child.h"
#include "report/probe_diff.h"
#include "report/probe_diff_output.h"
#include "report/probe_doc.h"
#include "tls/probe.h"
#include "test_paths.h"

namespace pqc {
namespace {

using report::ParseProbeDocument;
using report::ProbeDocument;

std::string Fixture(const std::string& name) {
  return std::string(PQC_TEST_DATA_DIR) + "/" + name;
}

ProbeDocument ReadFixture(const std::string& name) {
  auto doc = report::ReadProbeDocument(Fixture(name));
  EXPECT_TRUE(doc) << doc.error().message;
  return doc ? *doc : ProbeDocument{};
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string Write(const report::ProbeDiff& d, report::Format format) {
  std::ostringstream out;
  Status st = report::WriteProbeDiff(out, d, format);
  EXPECT_TRUE(st) << st.error().message;
  return out.str();
}

report::ProbeRow* Row(std::vector<report::ProbeRow>& rows, const std::string& name) {
  for (report::ProbeRow& r : rows) {
    if (r.name == name) return &r;
  }
  ADD_FAILURE() << name << " not in the document";
  static report::ProbeRow none;
  return &none;
}

TEST(ProbeDoc, ALiveProbeWritesTheExistingKeysAndTheBuildAndReadsBackTheSame) {
  const ProbeDocument doc =
      report::MakeProbeDocument(RunProbe({"X25519MLKEM768", "ml-dsa-44", "slh-dsa-sha2-128f"}));
  const nlohmann::ordered_json j = report::ProbeToJson(doc);
  EXPECT_EQ(j["openssl"], OpenSslVersion());
  for (const char* key : {"name", "family", "primitive", "tls", "negotiated", "error"}) {
    EXPECT_TRUE(j["groups"][0].contains(key)) << key;
    EXPECT_TRUE(j["signatures"][0].contains(key)) << key;
  }
  EXPECT_TRUE(j["signatures"][0].contains("x509"));
  EXPECT_FALSE(j["groups"][0].contains("x509"));
  EXPECT_EQ(j["groups"][0]["negotiated"], "X25519MLKEM768");
  EXPECT_TRUE(j["groups"][0]["error"].is_null());
  // The build facts are the library's own, labels removed.
  const auto& build = j["build"];
  EXPECT_EQ(build["version_text"].get<std::string>().rfind("OpenSSL " + OpenSslVersion(), 0), 0u)
      << build.dump();
  EXPECT_FALSE(Contains(build["cflags"].get<std::string>(), "compiler:")) << build.dump();
  EXPECT_FALSE(build["platform"].get<std::string>().empty());
  EXPECT_FALSE(Contains(build["dir"].get<std::string>(), "\"")) << build.dump();
  ASSERT_FALSE(build["providers"].empty());
  EXPECT_EQ(build["providers"][0]["name"], "default");
  EXPECT_EQ(build["providers"][0]["version"], OpenSslVersion());

  auto back = ParseProbeDocument(j.dump());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, doc);
}

TEST(ProbeDoc, BadDocumentsAreRefusedWithTheFieldThatIsWrong) {
  const std::string good = report::ProbeToJson(ReadFixture("probe_openssl-3.5.json")).dump();
  auto with = [&good](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = nlohmann::json::parse(good);
    change(j);
    return j.dump();
  };
  const std::pair<std::string, std::string> cases[] = {
      {"", "not JSON"},
      {"[1, 2]", "the document: expected an object, got array"},
      {"{\"schema\": \"pqc-bench/summary/1\"}", "schema: \"pqc-bench/summary/1\" is not a probe"},
      {with([](auto& j) { j["signatures"][3]["tls"] = "yes"; }),
       "signatures[3].tls: expected true or false, got string"},
      {with([](auto& j) { j["groups"][1].erase("primitive"); }),
       "groups[1]: missing \"primitive\""},
      {with([](auto& j) { j["signatures"][0].erase("x509"); }), "signatures[0]: missing \"x509\""},
      {with([](auto& j) { j.erase("build"); }), "the document: missing \"build\""},
      {with([](auto& j) { j["build"]["providers"][0]["version"] = 3; }),
       "build.providers[0].version: expected a string, got number"},
      {with([](auto& j) { j["groups"][2]["name"] = j["groups"][0]["name"]; }),
       "groups[2].name: \"X25519\" appears twice"},
      {with([](auto& j) { j["groups"][0]["name"] = ""; }), "groups[0].name: an empty name"},
      {with([](auto& j) { j["signatures"] = 1; }), "signatures: expected an array, got number"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text.substr(0, 80));
    auto doc = ParseProbeDocument(text);
    ASSERT_FALSE(doc);
    EXPECT_TRUE(Contains(doc.error().message, expected)) << doc.error().message;
  }
}

TEST(ProbeDoc, ADocumentWrittenBeforeTheBuildFactsIsReadWithItsBuildUnknown) {
  nlohmann::json j =
      nlohmann::json::parse(report::ProbeToJson(ReadFixture("probe_openssl-3.5.json")).dump());
  j.erase("schema");
  j.erase("build");
  auto old = ParseProbeDocument(j.dump());
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->schema, 0);
  EXPECT_FALSE(old->build);
  const report::ProbeDiff d =
      report::DiffProbes(*old, ReadFixture("probe_openssl-3.5.json"), {"old.json", "new.json"});
  EXPECT_EQ(d.facts[1].fact, "version text");
  EXPECT_EQ(d.facts[1].values[0], "not recorded");
  EXPECT_FALSE(d.AnyLayerChanged());
  auto back = ParseProbeDocument(report::ProbeToJson(*old).dump());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, *old);
}

TEST(ProbeDiff, ALayerThatChangesIsListedWithItsReasonAndTheRestAsUnchanged) {
  const ProbeDocument a = ReadFixture("probe_openssl-3.5.json");
  ProbeDocument b = a;
  report::ProbeRow* slh = Row(b.signatures, "slh-dsa-sha2-128f");
  ASSERT_FALSE(slh->tls);
  const std::string reason = slh->error;
  ASSERT_FALSE(reason.empty());
  slh->tls = true;
  slh->error.clear();
  slh->negotiated = "slhdsa_sha2_128f";
  b.groups.pop_back();  // MLKEM1024: in the first build only
  b.build->providers.push_back({.name = "fips", .version = "3.5.7", .buildinfo = "3.5.7"});

  const report::ProbeDiff d = report::DiffProbes(a, b, {"A.json", "B.json"});
  ASSERT_EQ(d.changes.size(), 1u);
  EXPECT_EQ(report::ChangeLine(d.changes[0]), "slh-dsa-sha2-128f: tls FAIL → ok");
  EXPECT_TRUE(d.AnyLayerChanged());
  ASSERT_EQ(d.only_in.size(), 1u);
  EXPECT_EQ(d.only_in[0].build, 0u);
  EXPECT_EQ(d.only_in[0].name, a.groups.back().name);
  EXPECT_EQ(d.common, a.groups.size() - 1 + a.signatures.size());
  const report::ProbeFact& fips = d.facts.back();
  EXPECT_EQ(fips.fact, "provider fips");
  EXPECT_EQ(fips.values[0], "not loaded");
  EXPECT_TRUE(fips.differs);

  const std::string table = Write(d, report::Format::kTable);
  EXPECT_TRUE(Contains(table, "1 of the " + std::to_string(d.common) +
                                  " algorithms in both builds changed at a layer"))
      << table;
  EXPECT_TRUE(Contains(table, "slh-dsa-sha2-128f: tls FAIL → ok  (A.json: " + reason + ")"))
      << table;
  EXPECT_TRUE(Contains(table, "Only in A.json: " + a.groups.back().name + " (group)")) << table;
  EXPECT_FALSE(Contains(table, "No algorithm changed")) << table;

  const auto j = nlohmann::json::parse(Write(d, report::Format::kJson));
  EXPECT_EQ(j["algorithm_changed"], true);
  ASSERT_EQ(j["changes"].size(), 1u);
  EXPECT_EQ(j["changes"][0]["name"], "slh-dsa-sha2-128f");
  EXPECT_EQ(j["changes"][0]["layers"][0]["layer"], "tls");
  EXPECT_EQ(j["changes"][0]["layers"][0]["from"], false);
  EXPECT_EQ(j["changes"][0]["layers"][0]["to"], true);
  EXPECT_EQ(j["only_in"][0]["build"], "A.json");
}

TEST(ProbeDiff, TheSameBuildTwiceChangesNothing) {
  const ProbeDocument a = ReadFixture("probe_openssl-3.5.json");
  const report::ProbeDiff d = report::DiffProbes(a, a, {"A.json", "A again"});
  EXPECT_TRUE(d.changes.empty());
  EXPECT_TRUE(d.only_in.empty());
  for (const report::ProbeFact& f : d.facts) EXPECT_FALSE(f.differs) << f.fact;
  const std::string md = Write(d, report::Format::kMarkdown);
  EXPECT_TRUE(Contains(md, "No algorithm changed: the " + std::to_string(d.common))) << md;
  EXPECT_TRUE(Contains(md, "| same in both | value |")) << md;
  EXPECT_TRUE(Contains(md, "| version | 3.5.7 |")) << md;
  EXPECT_FALSE(Contains(md, "| fact |")) << md;  // no table of differing facts
  EXPECT_EQ(nlohmann::json::parse(Write(d, report::Format::kJson))["algorithm_changed"], false);
  std::ostringstream csv;
  EXPECT_FALSE(report::WriteProbeDiff(csv, d, report::Format::kCsv));
}

// The two real builds: OpenSSL 3.6 changed no algorithm against 3.5 in this tool's probe
// (SLH-DSA still stops at TLS, with the same reason); the builds' facts say which is which.
TEST(ProbeDiff, OpenSsl35Against36ChangedNoAlgorithm) {
  const report::ProbeDiff d =
      report::DiffProbes(ReadFixture("probe_openssl-3.5.json"),
                         ReadFixture("probe_openssl-3.6.json"), {"3.5.json", "3.6.json"});
  EXPECT_EQ(d.facts[0].values[0], "3.5.7");
  EXPECT_EQ(d.facts[0].values[1], "3.6.3");
  std::vector<std::string> differ;
  for (const report::ProbeFact& f : d.facts) {
    if (f.differs) differ.push_back(f.fact);
  }
  EXPECT_EQ(differ, (std::vector<std::string>{"version", "version text", "built on", "OPENSSLDIR",
                                              "modules dir", "provider default"}));
  EXPECT_TRUE(d.only_in.empty());
  EXPECT_TRUE(d.changes.empty());
  EXPECT_EQ(d.common, 8u + 21u);
  const std::string table = Write(d, report::Format::kTable);
  EXPECT_TRUE(Contains(table, "No algorithm changed: the 29 algorithms in both builds")) << table;
  EXPECT_TRUE(Contains(table, "provider default  3.5.7")) << table;
}

class ProbeCompareCli : public ::testing::Test {
 protected:
  test::BenchExit Run(const std::vector<std::string>& args) {
    return test::WaitBench(test::SpawnBench(args, tmp_.path()), std::chrono::seconds(60));
  }
  std::string File(const std::string& name, const std::string& text) {
    const std::string path = tmp_.path() + "/" + name;
    test::WriteFile(path, text);
    return path;
  }
  test::TempDir tmp_{"probe-compare"};
};

TEST_F(ProbeCompareCli, CompareOfTwoProbeDocumentsListsWhatChanged) {
  ProbeDocument b = ReadFixture("probe_openssl-3.5.json");
  Row(b.signatures, "slh-dsa-sha2-128f")->tls = true;
  const std::string second = File("b.json", report::ProbeToJson(b).dump(2));
  const auto e = Run({"compare", Fixture("probe_openssl-3.5.json"), second});
  EXPECT_EQ(e.code, 0) << e.output;
  EXPECT_TRUE(Contains(e.output, "slh-dsa-sha2-128f: tls FAIL → ok")) << e.output;
  EXPECT_TRUE(Contains(e.output, "OpenSSL builds")) << e.output;

  const std::string out = tmp_.path() + "/diff.json";
  const auto j = Run({"probe", "--compare", Fixture("probe_openssl-3.5.json"), second, "--format",
                      "json", "-o", out});
  EXPECT_EQ(j.code, 0) << j.output;
  EXPECT_EQ(nlohmann::json::parse(test::ReadFile(out))["changes"][0]["name"], "slh-dsa-sha2-128f");
}

TEST_F(ProbeCompareCli, ABadDocumentIsRefusedWithItsFileAndField) {
  nlohmann::json j = nlohmann::json::parse(test::ReadFile(Fixture("probe_openssl-3.5.json")));
  j["groups"][0]["tls"] = nullptr;
  const std::string bad = File("bad.json", j.dump());
  const auto e = Run({"compare", Fixture("probe_openssl-3.5.json"), bad});
  EXPECT_EQ(e.code, 2) << e.output;
  EXPECT_TRUE(Contains(e.output,
                       "bad.json: not a probe document (pqc-bench probe --json): "
                       "groups[0].tls: expected true or false, got null"))
      << e.output;
  // Flags of a run comparison mean nothing for probes: refused, not ignored.
  const auto gate = Run({"compare", Fixture("probe_openssl-3.5.json"),
                         Fixture("probe_openssl-3.6.json"), "--fail-if", "handshake.p50 > +1%"});
  EXPECT_EQ(gate.code, 2) << gate.output;
  EXPECT_TRUE(Contains(gate.output, "--fail-if applies to stored runs")) << gate.output;
  const auto three = Run({"compare", Fixture("probe_openssl-3.5.json"),
                          Fixture("probe_openssl-3.6.json"), Fixture("probe_openssl-3.6.json")});
  EXPECT_EQ(three.code, 2) << three.output;
  EXPECT_TRUE(Contains(three.output, "compare two probe documents, not 3")) << three.output;
}

TEST_F(ProbeCompareCli, ProbeComparesAFileWithThisBuild) {
  ProbeDocument a = report::MakeProbeDocument(RunProbe({"X25519", "ml-dsa-65"}));
  Row(a.groups, "X25519")->tls = false;
  const auto e = Run({"probe", "--only", "X25519,ml-dsa-65", "--compare",
                      File("a.json", report::ProbeToJson(a).dump())});
  EXPECT_EQ(e.code, 0) << e.output;
  EXPECT_TRUE(Contains(e.output, "X25519: tls FAIL → ok")) << e.output;
  EXPECT_TRUE(Contains(e.output, "this build (" + OpenSslVersion() + ")")) << e.output;
}

TEST(ProbeDoc, OnlyARegularFileThatOpensAnObjectLooksLikeAProbeDocument) {
  test::TempDir tmp("probe-dispatch");
  const std::string dir = tmp.path();
  test::WriteFile(dir + "/a.json", "  \n{\"openssl\": \"3.5.7\"}");
  test::WriteFile(dir + "/list.json", "[]");
  test::WriteFile(dir + "/results.sqlite", std::string("SQLite format 3\0", 16));
  test::WriteFile(dir + "/blank", " \n");
  EXPECT_TRUE(report::HoldsJsonObject(dir + "/a.json"));
  for (const char* name : {"list.json", "results.sqlite", "blank", "missing.json", ""}) {
    EXPECT_FALSE(report::HoldsJsonObject(dir + "/" + name)) << name;
  }
}

// compare's dispatch: only when every input is a JSON file (flag values are no inputs).
TEST_F(ProbeCompareCli, CompareDispatchesOnlyWhenEveryInputIsAJsonFile) {
  const std::string a = Fixture("probe_openssl-3.5.json");
  const std::string b = Fixture("probe_openssl-3.6.json");
  const std::string out = tmp_.path() + "/out.md";
  const auto md = Run({"compare", "--format", "md", a, b, "-o", out});
  EXPECT_EQ(md.code, 0) << md.output;
  EXPECT_TRUE(Contains(test::ReadFile(out), "## Probe comparison")) << test::ReadFile(out);
  // A run directory among the inputs: a run comparison, whose own error names the input.
  const std::string run = tmp_.path() + "/run";
  std::filesystem::create_directories(run);
  const auto mixed = Run({"compare", a, run});
  EXPECT_EQ(mixed.code, 2) << mixed.output;
  EXPECT_FALSE(Contains(mixed.output, "Probe comparison")) << mixed.output;
}

}  // namespace
}  // namespace pqc
