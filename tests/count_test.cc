// count/: the callgrind reader on hand-written files (each compression, call costs, the
// errors a bad file must give) and on a small real profile (tests/data), the stage table, and
// the stage attribution on synthetic call graphs whose answer is known by construction.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>

#include "count/callgrind_profile.h"
#include "count/stage_attribution.h"
#include "count/stage_table.h"
#include "test_paths.h"

namespace pqc::count {
namespace {

constexpr std::string_view kHeader =
    "# callgrind format\n"
    "version: 1\n"
    "creator: callgrind-3.19.0\n"
    "pid: 42\n"
    "cmd:  ./prog --flag\n"
    "part: 1\n"
    "\n"
    "desc: Trigger: Program termination\n"
    "positions: line\n"
    "event: sysTime : sysTime (elapsed ms)\n"
    "events: Ir sysCount sysTime\n";

Profile Parse(std::string_view body) {
  const std::string text = std::string(kHeader) + std::string(body);
  auto p = ParseCallgrind(text, "t.out");
  EXPECT_TRUE(p.ok()) << p.error().message;
  return p.ok() ? *p : Profile{};
}

std::string ParseError(std::string_view text) {
  auto p = ParseCallgrind(text, "t.out");
  EXPECT_FALSE(p.ok()) << text;
  return p.ok() ? std::string() : p.error().message;
}

const ProfileFunction* Find(const Profile& p, std::string_view name, std::string_view object = {}) {
  for (const ProfileFunction& f : p.functions) {
    if (f.name == name && (object.empty() || f.object == object)) return &f;
  }
  return nullptr;
}

const ProfileCall* FindCall(const Profile& p, std::string_view caller, std::string_view callee) {
  for (const ProfileCall& c : p.calls) {
    if (p.functions[c.caller].name == caller && p.functions[c.callee].name == callee) return &c;
  }
  return nullptr;
}

TEST(ParseCallgrind, ReadsHeaderNamesAndCompressedPositions) {
  const Profile p = Parse(
      "ob=(1) /lib/libc.so.6\n"
      "fl=(1) a.c\n"
      "fn=(1) main\n"
      "10 5\n"
      "+2 3\n"
      "-1 2\n"
      "* 1\n"
      "fn=(2) helper\n"
      "20 7 1 3\n"
      "# a comment between cost lines\n"
      "fn=(1)\n"
      "* 4\n"
      "\n"
      "totals: 22 1 3\n");
  EXPECT_EQ(p.command, "./prog --flag");
  ASSERT_EQ(p.functions.size(), 2u);
  const ProfileFunction* main = Find(p, "main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->object, "/lib/libc.so.6");
  EXPECT_EQ(main->self.ir, 15u);  // 5 + 3 + 2 + 1, and 4 after fn=(1) comes back
  EXPECT_EQ(main->self.syscalls, 0u);
  const ProfileFunction* helper = Find(p, "helper");
  ASSERT_NE(helper, nullptr);
  EXPECT_EQ(helper->self.ir, 7u);
  EXPECT_EQ(helper->self.syscalls, 1u);  // sysTime (3) is read and dropped
  EXPECT_EQ(p.totals.ir, 22u);
  EXPECT_EQ(p.totals.syscalls, 1u);
}

TEST(ParseCallgrind, CallCostIsInclusiveOnTheEdgeNotTheCallersSelf) {
  const Profile p = Parse(
      "fn=(1) main\n"
      "1 10\n"
      "cfn=(2) f\n"
      "calls=1 5\n"
      "2 60 1\n"
      "cfn=(2)\n"
      "calls=2 5\n"
      "3 40 1\n"
      "fn=(2)\n"
      "5 60 1\n"
      "cfn=(3) g\n"
      "calls=1 9\n"
      "6 40 1\n"
      "fn=(3)\n"
      "9 40 1\n"
      "totals: 110 2\n");
  EXPECT_EQ(Find(p, "main")->self.ir, 10u);
  EXPECT_EQ(Find(p, "f")->self.ir, 60u);
  ASSERT_EQ(p.calls.size(), 2u);
  const ProfileCall* main_f = FindCall(p, "main", "f");
  ASSERT_NE(main_f, nullptr);
  EXPECT_EQ(main_f->calls, 3u);  // two call sites, one edge
  EXPECT_EQ(main_f->inclusive.ir, 100u);
  EXPECT_EQ(main_f->inclusive.syscalls, 2u);
  const ProfileCall* f_g = FindCall(p, "f", "g");
  ASSERT_NE(f_g, nullptr);
  EXPECT_EQ(f_g->inclusive.ir, 40u);
}

TEST(ParseCallgrind, CobNamesTheObjectOfOneCallOnly) {
  const Profile p = Parse(
      "ob=(1) /bin/prog\n"
      "fn=(1) main\n"
      "1 1\n"
      "cob=(2) /lib/libc.so.6\n"
      "cfi=(9) ???\n"
      "cfn=(2) write\n"
      "calls=1 0\n"
      "1 5 1\n"
      "cfn=(3) local\n"
      "calls=1 0\n"
      "1 2\n"
      "ob=(2)\n"
      "fn=(2)\n"
      "0 5 1\n"
      "ob=(1)\n"
      "fn=(3)\n"
      "0 2\n"
      "totals: 8 1\n");
  ASSERT_EQ(p.functions.size(), 3u);
  EXPECT_EQ(Find(p, "write")->object, "/lib/libc.so.6");
  EXPECT_EQ(Find(p, "local")->object, "/bin/prog");
  EXPECT_EQ(Find(p, "write")->self.syscalls, 1u);
}

TEST(ParseCallgrind, SameNameInTwoObjectsIsTwoFunctions) {
  const Profile p = Parse(
      "ob=(1) /lib/a.so\n"
      "fn=(5) init\n"
      "0 3\n"
      "ob=(2) /lib/b.so\n"
      "fn=(5)\n"
      "0 4\n"
      "totals: 7\n");
  ASSERT_EQ(p.functions.size(), 2u);
  EXPECT_EQ(Find(p, "init", "/lib/a.so")->self.ir, 3u);
  EXPECT_EQ(Find(p, "init", "/lib/b.so")->self.ir, 4u);
}

TEST(ParseCallgrind, InlinedFilesStayInTheirFunction) {
  const Profile p = Parse(
      "fl=(1) a.c\n"
      "fn=(1) main\n"
      "1 1\n"
      "fi=(2) inline.h\n"
      "+4 2\n"
      "fe=(1)\n"
      "-3 3\n"
      "totals: 6\n");
  ASSERT_EQ(p.functions.size(), 1u);
  EXPECT_EQ(p.functions[0].self.ir, 6u);
}

TEST(ParseCallgrind, UncompressedNamesInstrPositionsHexAndJumps) {
  auto p = ParseCallgrind(
      "events: Ir\n"
      "positions: instr line\n"
      "ob=/bin/prog\n"
      "fn=main\n"
      "0x401000 10 5\n"
      "+3 * 0x2\n"
      "jump=1 +2 *\n"
      "+1 +1\n"
      "jcnd=1 2 +4 *\n"
      "+1 +1 1\n"
      "fn=main\n"
      "+1 * 1\n"
      "summary: 9\n",
      "t.out");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->functions.size(), 1u);
  EXPECT_EQ(p->functions[0].self.ir, 9u);
  EXPECT_EQ(p->functions[0].self.syscalls, 0u);  // no sysCount event: none counted
  EXPECT_EQ(p->totals.ir, 9u);
}

TEST(ParseCallgrind, TotalsWinOverSummary) {
  // As valgrind writes them for a window dump: the summary counts the system calls made while
  // collection was off, the totals only those of the cost lines.
  const Profile p = Parse(
      "summary: 10 9\n"
      "fn=main\n"
      "1 10 2\n"
      "totals: 10 2\n");
  EXPECT_EQ(p.totals.syscalls, 2u);
}

TEST(ParseCallgrind, BadFilesAreErrorsNamingTheLine) {
  const std::string h(kHeader);  // 11 lines
  const struct {
    std::string text;
    std::string message;
  } cases[] = {
      {h + "fn=main\n1 10\ntotals: 11\n",
       "t.out:14: totals: says Ir 11 and sysCount 0, the cost "
       "lines sum to 10 and 0"},
      {h + "fn=main\n1 10\nsummary: 11\n", "summary: says Ir 11"},
      {h + "fn=main\n1 10\ncfn=f\ncalls=1 0\n", "t.out:15: the file ends after calls= of line 15"},
      {h + "fn=main\n1 10\n", "t.out:13: no totals: or summary: line (truncated?)"},
      {h + "fn=main\n1 10\nhello world\n", "t.out:14: not a callgrind line: 'hello world'"},
      {h + "fn=main\n1 10\n\x01\x02\xff\n", "t.out:14: not a callgrind line: '\?\?\?'"},
      {h + "1 10\n", "t.out:12: cost line before any fn="},
      {h + "fn=(7)\n", "t.out:12: name id (7) used before it is defined"},
      {h + "fn=(7) a\nfn=(7) b\n", "t.out:13: name id (7) defined again"},
      {h + "fn=(7 a\n", "t.out:12: name '(7 a' has no ')'"},
      {h + "fn=\n", "t.out:12: empty name"},
      {h + "fn=main\n1 12x\n", "t.out:13: bad cost '12x'"},
      {h + "fn=main\n1 -3\n", "t.out:13: bad cost '-3'"},
      {h + "fn=main\n1x 3\n", "t.out:13: bad position '1x'"},
      {h + "fn=main\n1 18446744073709551616\n", "t.out:13: bad cost '18446744073709551616'"},
      {h + "fn=main\n1 18446744073709551615\n2 1\n", "t.out:14: the summed costs overflow"},
      {h + "fn=main\n1 1 2 3 4\n", "t.out:13: more costs than the 3 events"},
      {h + "fn=main\ncalls=1 0\n1 5\n", "t.out:13: calls= without a cfn="},
      {h + "cfn=f\ncalls=1 0\n1 5\n", "t.out:13: calls= before any fn="},
      {h + "fn=main\ncfn=f\ncalls=1\n", "t.out:14: calls= needs a target"},
      {h + "fn=main\ncfn=f\ncalls=x 0\n", "t.out:14: bad call count 'x'"},
      {h + "fn=main\ncfn=f\ncalls=1 0\nfn=g\n", "t.out:15: calls= of line 14 is not followed"},
      {h + "fn=main\ncfn=f\ncalls=1 0\n\n1 5\n", "t.out:15: calls= of line 14 is not followed"},
      {h + "foo: bar\n", "t.out:12: unknown header 'foo:'"},
      {h + "xy=1\n", "t.out:12: unknown specification 'xy='"},
      {h + "positions: line column\n", "t.out:12: unknown position 'column'"},
      {h + "events: Ir\n", "t.out:12: a second events: line"},
      {h + "fn=main\n1 1\npart: 2\n", "t.out:14: header line 'part:' after the cost lines"},
      {"events: Dr Dw\n", "t.out:1: events: has no Ir"},
      {"version: 2\n", "t.out:1: version '2'"},
      {"totals: 5\nevents: Ir\n", "t.out:1: totals: before the events: line"},
      {"fn=main\n1 1\n", "t.out:2: cost line before the events: line"},
      {h + "totals: 0\ntotals: 0\n", "t.out:13: a second totals: line"},
      {"", "t.out: no events: line"},
  };
  for (const auto& c : cases) {
    const std::string message = ParseError(c.text);
    EXPECT_NE(message.find(c.message), std::string::npos)
        << "input:\n"
        << c.text << "\nmessage: " << message << "\nexpected: " << c.message;
  }
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A real profile: valgrind 3.19's callgrind on `pqc-bench speed --only X25519 --seconds 10ms`
// with --collect-systime=yes --toggle-collect='pqc::speed::MeasureSpeed*' (so that it is
// small, and like `count`'s window a part of the run), paths made neutral.
constexpr std::string_view kRealProfile = "callgrind_speed_x25519.out";

TEST(ParseCallgrind, ReadsARealProfile) {
  const std::string text = ReadAll(std::filesystem::path(PQC_TEST_DATA_DIR) / kRealProfile);
  ASSERT_FALSE(text.empty());
  auto p = ParseCallgrind(text, kRealProfile);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->command, "/opt/pqc-bench/bin/pqc-bench speed --only X25519 --seconds 10ms");
  EXPECT_EQ(p->totals.ir, 8939579u);
  EXPECT_EQ(p->totals.syscalls, 65u);  // the totals: line's, not the summary's 236
  EXPECT_GT(p->functions.size(), 1000u);
  const ProfileFunction* derive = Find(*p, "EVP_PKEY_derive", "/opt/openssl/lib/libcrypto.so.3");
  ASSERT_NE(derive, nullptr);
  EXPECT_GT(derive->self.ir, 0u);
  ASSERT_NE(Find(*p, "pqc::speed::MeasureSpeed(pqc::speed::SpeedOptions const&)"), nullptr);
  for (const ProfileCall& c : p->calls) {
    ASSERT_LT(c.caller, p->functions.size());
    ASSERT_LT(c.callee, p->functions.size());
  }
}

TEST(ParseCallgrind, ARealProfileCutShortIsRefused) {
  const std::string text = ReadAll(std::filesystem::path(PQC_TEST_DATA_DIR) / kRealProfile);
  ASSERT_GT(text.size(), 100000u);
  // Cut at a line's end (no half line to trip on): only the missing totals can tell.
  const size_t cut = text.rfind('\n', text.size() / 2) + 1;
  const std::string message = ParseError(text.substr(0, cut));
  EXPECT_NE(message.find("summary: says Ir 8939579"), std::string::npos) << message;
}

TEST(StageTable, StagesInEnumOrderWithTheirIds) {
  const char* const ids[] = {"keyshare", "kex",    "sign", "verify", "chain", "schedule",
                             "tickets",  "record", "http", "kernel", "rest"};
  ASSERT_EQ(Stages().size(), std::size(ids));
  for (size_t i = 0; i < Stages().size(); ++i) {
    const StageInfo& info = Stages()[i];
    EXPECT_EQ(static_cast<size_t>(info.stage), i);
    EXPECT_EQ(info.id, ids[i]);
    EXPECT_EQ(&StageOf(info.stage), &info);
    EXPECT_EQ(ParseStageId(ids[i]), info.stage);
    EXPECT_FALSE(info.label.empty());
  }
  EXPECT_FALSE(ParseStageId("Sign").has_value());
  EXPECT_FALSE(ParseStageId("").has_value());
  EXPECT_EQ(StageOf(Stage::kKernel).priority, 9);
  EXPECT_EQ(StageOf(Stage::kVerify).priority, 6);
  EXPECT_EQ(StageOf(Stage::kRest).priority, 0);
  EXPECT_TRUE(StageOf(Stage::kKernel).entries.empty());  // decided per profile
  EXPECT_TRUE(StageOf(Stage::kRest).entries.empty());
}

TEST(StageTable, EveryEntryResolvesToItsOwnStage) {
  for (const StageInfo& info : Stages()) {
    for (std::string_view entry : info.entries) {
      std::string name(entry);
      if (name.back() == '*') name.back() = 'X';  // a name the prefix covers
      EXPECT_EQ(EntryStage(name), info.stage) << name;
    }
  }
}

TEST(StageTable, ExactNamesUpToTheParameterListAndPrefixes) {
  EXPECT_EQ(EntryStage("EVP_DigestSign"), Stage::kSign);
  EXPECT_EQ(EntryStage("EVP_DigestSign(evp_md_ctx_st*)"), Stage::kSign);
  EXPECT_FALSE(EntryStage("EVP_DigestSignature").has_value());  // exact, not a prefix
  EXPECT_FALSE(EntryStage("xEVP_DigestSign").has_value());
  EXPECT_EQ(EntryStage("ASN1_item_verify_ex"), Stage::kVerify);
  EXPECT_EQ(EntryStage("tls13_hkdf_expand_ex"), Stage::kSchedule);
  EXPECT_EQ(
      EntryStage("pqc::RequestParser::Feed(std::basic_string_view<char, std::char_traits<char> >)"),
      Stage::kHttp);
  EXPECT_EQ(EntryStage("pqc::server::Connection::PrepareResponse()"), Stage::kHttp);
  EXPECT_EQ(EntryStage("nghttp3_conn_read_stream"), Stage::kHttp);
  EXPECT_FALSE(EntryStage("pqc::server::Connection::ReadRequest()").has_value());
  EXPECT_FALSE(EntryStage("(anonymous namespace)::EVP_DigestSign(int)").has_value());
  EXPECT_FALSE(EntryStage("SSL_do_handshake").has_value());
  EXPECT_FALSE(EntryStage("").has_value());
  // callgrind's recursion levels (--separate-recs): the same function
  EXPECT_EQ(EntryStage("EVP_PKEY_encapsulate'2"), Stage::kKeyExchange);
  EXPECT_FALSE(EntryStage("EVP_PKEY_encapsulate'x").has_value());
  EXPECT_FALSE(EntryStage("EVP_PKEY_encapsulate'").has_value());
}

// Graph: a synthetic profile; the caller states each edge's inclusive cost.
struct Graph {
  Profile p;
  size_t Fn(std::string name, uint64_t self_ir, uint64_t self_syscalls = 0) {
    p.functions.push_back({"/lib/x.so", std::move(name), {self_ir, self_syscalls}});
    p.totals.ir += self_ir;
    p.totals.syscalls += self_syscalls;
    return p.functions.size() - 1;
  }
  void Call(size_t caller, size_t callee, uint64_t ir, uint64_t syscalls = 0) {
    p.calls.push_back({caller, callee, 1, {ir, syscalls}});
  }
};

EventCosts CostOf(const std::vector<StageCost>& v, Stage s) {
  for (const StageCost& c : v) {
    if (c.stage == s) return c.cost;
  }
  ADD_FAILURE() << "no stage " << StageOf(s).id;
  return {};
}

uint64_t Ir(const Attribution& a, Stage s) {
  return CostOf(a.stages, s).ir;
}

void ExpectSumsToTotal(const Attribution& a) {
  ASSERT_EQ(a.stages.size(), Stages().size());
  ASSERT_EQ(a.syscalls_from.size(), Stages().size());
  uint64_t ir = 0, syscalls = 0;
  for (size_t i = 0; i < a.stages.size(); ++i) {
    EXPECT_EQ(a.stages[i].stage, Stages()[i].stage);
    ir += a.stages[i].cost.ir;
    syscalls += a.stages[i].cost.syscalls;
  }
  EXPECT_EQ(ir, a.total.ir);
  EXPECT_EQ(syscalls, a.total.syscalls);
}

TEST(Attribute, NestedEntriesMoveCostOutAndBack) {
  // main → SSL_do_handshake → EVP_DigestSign → EVP_DigestVerify (a signer checking its
  // signature); memcpy runs in both.
  Graph g;
  const size_t main = g.Fn("main", 100);
  const size_t hs = g.Fn("SSL_do_handshake", 50);
  const size_t sign = g.Fn("EVP_DigestSign", 30);
  const size_t verify = g.Fn("EVP_DigestVerify", 20);
  const size_t copy = g.Fn("memcpy", 12);
  g.Call(verify, copy, 5);
  g.Call(sign, copy, 7);
  g.Call(sign, verify, 25);
  g.Call(hs, sign, 62);
  g.Call(main, hs, 112);
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(a.total.ir, 212u);
  EXPECT_EQ(Ir(a, Stage::kVerify), 25u);
  EXPECT_EQ(Ir(a, Stage::kSign), 37u);
  EXPECT_EQ(Ir(a, Stage::kRest), 150u);
  EXPECT_EQ(a.ambiguous_ir, 0u);
}

TEST(Attribute, AnEntryReachedFromTwoContextsIsCountedAmbiguous) {
  // hash runs from main (rest) and from inside the signature: its calls to the verifier
  // (25 from main, 15 from the signature, summed by callgrind into one edge of 40) cannot be
  // told apart; the move takes from rest, the lowest, and says so.
  Graph g;
  const size_t main = g.Fn("main", 10);
  const size_t sign = g.Fn("EVP_DigestSign", 20);
  const size_t hash = g.Fn("hash", 10);
  const size_t verify = g.Fn("EVP_DigestVerify", 40);
  g.Call(hash, verify, 40);
  g.Call(sign, hash, 20);
  g.Call(main, sign, 40);
  g.Call(main, hash, 30);
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(Ir(a, Stage::kVerify), 40u);
  EXPECT_EQ(Ir(a, Stage::kSign) + Ir(a, Stage::kRest), 40u);
  EXPECT_EQ(a.ambiguous_ir, 40u);
}

TEST(Attribute, KernelWrappersAreCarvedOutOfTheirCallersStage) {
  Graph g;
  const size_t main = g.Fn("main", 10);
  const size_t write_records = g.Fn("tls_write_records", 20);
  const size_t write = g.Fn("__libc_write", 5, 3);
  const size_t poll = g.Fn("epoll_wait", 4, 2);
  g.Call(write_records, write, 5, 3);
  g.Call(main, write_records, 25, 3);
  g.Call(main, poll, 4, 2);
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(Ir(a, Stage::kRecord), 20u);
  EXPECT_EQ(CostOf(a.stages, Stage::kRecord).syscalls, 0u);
  EXPECT_EQ(Ir(a, Stage::kKernel), 9u);
  EXPECT_EQ(CostOf(a.stages, Stage::kKernel).syscalls, 5u);
  EXPECT_EQ(Ir(a, Stage::kRest), 10u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kRecord).ir, 5u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kRecord).syscalls, 3u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kRest).ir, 4u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kRest).syscalls, 2u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kKernel).syscalls, 0u);
  EXPECT_EQ(a.ambiguous_ir, 0u);
}

TEST(Attribute, AWrapperCalledFromTwoStagesIsSplitByItsEdges) {
  Graph g;
  const size_t main = g.Fn("main", 10);
  const size_t write_records = g.Fn("tls_write_records", 20);
  const size_t write = g.Fn("write", 40, 4);
  g.Call(write_records, write, 30, 3);
  g.Call(main, write_records, 50, 3);
  g.Call(main, write, 10, 1);
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(Ir(a, Stage::kKernel), 40u);
  EXPECT_EQ(Ir(a, Stage::kRecord), 20u);
  EXPECT_EQ(Ir(a, Stage::kRest), 10u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kRecord).ir, 30u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kRecord).syscalls, 3u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kRest).ir, 10u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kRest).syscalls, 1u);
  EXPECT_EQ(a.ambiguous_ir, 0u);  // a wrapper that calls nothing: each edge is its own
}

TEST(Attribute, AFunctionThatCallsOnGivesTheKernelOnlyItsOwnCost) {
  // start_thread makes system calls, then runs the whole worker: only its own instructions and
  // calls are the kernel's.
  Graph g;
  const size_t clone = g.Fn("clone3", 10);
  const size_t start = g.Fn("start_thread", 30, 3);
  const size_t worker = g.Fn("worker", 100);
  const size_t sign = g.Fn("EVP_DigestSign", 50);
  g.Call(worker, sign, 50);
  g.Call(start, worker, 150);
  g.Call(clone, start, 180, 3);
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(CostOf(a.stages, Stage::kKernel).ir, 30u);
  EXPECT_EQ(CostOf(a.stages, Stage::kKernel).syscalls, 3u);
  EXPECT_EQ(Ir(a, Stage::kSign), 50u);
  EXPECT_EQ(Ir(a, Stage::kRest), 110u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kRest).ir, 30u);
}

TEST(Attribute, AnIncidentalSystemCallMovesWithoutItsFunctionsWork) {
  // free returns memory to the system now and then: the call is the kernel's, its
  // bookkeeping (far more instructions than a wrapper's) its caller's.
  Graph g;
  const size_t main = g.Fn("main", 10);
  const size_t sign = g.Fn("EVP_DigestSign", 20);
  const size_t free = g.Fn("free", 5000, 1);
  g.Call(sign, free, 5000, 1);
  g.Call(main, sign, 5020, 1);
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(CostOf(a.stages, Stage::kSign).ir, 5020u);
  EXPECT_EQ(CostOf(a.stages, Stage::kSign).syscalls, 0u);
  EXPECT_EQ(CostOf(a.stages, Stage::kKernel).ir, 0u);
  EXPECT_EQ(CostOf(a.stages, Stage::kKernel).syscalls, 1u);
  EXPECT_EQ(CostOf(a.syscalls_from, Stage::kSign).syscalls, 1u);
}

TEST(Attribute, CyclesReachAFixedPoint) {
  // main → loop ⇄ EVP_DigestSign (the signer calls back into the loop), and a cycle that no
  // root reaches (a window's dump can start inside one): it runs in rest.
  Graph g;
  const size_t main = g.Fn("main", 10);
  const size_t loop = g.Fn("loop", 10);
  const size_t sign = g.Fn("EVP_DigestSign", 10);
  const size_t a1 = g.Fn("orphan_a", 5);
  const size_t b1 = g.Fn("EVP_DigestVerify", 7);
  g.Call(main, loop, 30);
  g.Call(loop, sign, 20);
  g.Call(sign, loop, 10);
  g.Call(a1, b1, 7);
  g.Call(b1, a1, 5);
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(Ir(a, Stage::kSign), 20u);
  EXPECT_EQ(a.ambiguous_ir, 27u);  // loop runs in rest and sign, orphan_a in rest and verify
  EXPECT_EQ(Ir(a, Stage::kVerify), 7u);
  EXPECT_EQ(Ir(a, Stage::kRest), 15u);
}

TEST(Attribute, RecursionMovesNothing) {
  Graph g;
  const size_t main = g.Fn("main", 10);
  const size_t sign = g.Fn("EVP_DigestSign", 40);
  g.Call(main, sign, 40);
  g.Call(sign, sign, 30);  // callgrind counts the inner calls' cost again
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(Ir(a, Stage::kSign), 40u);
  EXPECT_EQ(a.ambiguous_ir, 0u);
}

TEST(Attribute, EqualPrioritiesKeepTheOuterStage) {
  // A provider's encapsulation generates its own ephemeral key: still the key exchange.
  Graph g;
  const size_t main = g.Fn("main", 10);
  const size_t encaps = g.Fn("EVP_PKEY_encapsulate", 10);
  const size_t keygen = g.Fn("EVP_PKEY_generate", 30);
  g.Call(encaps, keygen, 30);
  g.Call(main, encaps, 40);
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(Ir(a, Stage::kKeyExchange), 40u);
  EXPECT_EQ(Ir(a, Stage::kKeyShare), 0u);
}

TEST(Attribute, AMoveLargerThanItsSourceIsClampedAndCounted) {
  Graph g;
  const size_t main = g.Fn("main", 10);
  const size_t sign = g.Fn("EVP_DigestSign", 20);
  g.Call(main, sign, 1000);  // more than the whole profile: an inconsistent file
  const Attribution a = Attribute(g.p);
  ExpectSumsToTotal(a);
  EXPECT_EQ(Ir(a, Stage::kSign), 30u);
  EXPECT_EQ(Ir(a, Stage::kRest), 0u);
  EXPECT_EQ(a.ambiguous_ir, 970u);
}

TEST(Attribute, StagesAlwaysSumToTheTotal) {
  // Random graphs over entries of every stage, system call wrappers and plain functions, with
  // inclusive costs that need not be consistent: the sums must hold whatever the input.
  const char* const names[] = {"main",
                               "helper",
                               "EVP_DigestSign",
                               "EVP_DigestVerify",
                               "EVP_PKEY_generate",
                               "EVP_PKEY_encapsulate",
                               "tls_write_records",
                               "ssl3_finish_mac",
                               "pqc::http::TrimOws(int)",
                               "write"};
  std::mt19937_64 rng(20250101);
  for (int round = 0; round < 300; ++round) {
    Graph g;
    const size_t n = 1 + rng() % 10;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t syscalls = (rng() % 4 == 0) ? rng() % 5 : 0;
      g.Fn(names[rng() % std::size(names)], rng() % 1000, syscalls);
    }
    const size_t edges = rng() % 20;
    for (size_t i = 0; i < edges; ++i) {
      g.Call(rng() % n, rng() % n, rng() % 3000, rng() % 10);
    }
    const Attribution a = Attribute(g.p);
    ExpectSumsToTotal(a);
    uint64_t from = 0;
    for (const StageCost& c : a.syscalls_from) from += c.cost.syscalls;
    EXPECT_EQ(from, a.total.syscalls);  // every system call is the kernel's, from somewhere
    EXPECT_EQ(CostOf(a.stages, Stage::kKernel).syscalls, a.total.syscalls);
    if (HasFailure()) break;
  }
}

TEST(Attribute, ARealProfileSplitsIntoKeyShareAndExchange) {
  const std::string text = ReadAll(std::filesystem::path(PQC_TEST_DATA_DIR) / kRealProfile);
  auto p = ParseCallgrind(text, kRealProfile);
  ASSERT_TRUE(p.ok()) << p.error().message;
  const Attribution a = Attribute(*p);
  ExpectSumsToTotal(a);
  // X25519 key generation and derivation, and what OpenSSL sets up around them: the two
  // crypto stages are callgrind_annotate --inclusive=yes's EVP_PKEY_keygen (3,159,086) and
  // EVP_PKEY_derive (505,898), less the instructions of the system call wrappers inside.
  EXPECT_EQ(Ir(a, Stage::kKeyShare) + CostOf(a.syscalls_from, Stage::kKeyShare).ir, 3159086u);
  EXPECT_EQ(Ir(a, Stage::kKeyExchange), 505898u);
  EXPECT_LT(Ir(a, Stage::kKernel), a.total.ir / 1000);
  for (Stage s : {Stage::kSign, Stage::kVerify, Stage::kChain, Stage::kSchedule, Stage::kTickets,
                  Stage::kRecord, Stage::kHttp}) {
    EXPECT_EQ(Ir(a, s), 0u) << StageOf(s).id;
  }
  EXPECT_EQ(CostOf(a.stages, Stage::kKernel).syscalls, a.total.syscalls);
}

}  // namespace
}  // namespace pqc::count
