// The observatory (`serve --clients`, `report --clients`): the ClientHello parser on real
// ClientHellos (OpenSSL 3.5 with a hybrid key share, the system's OpenSSL 3.0, TLS 1.2 only)
// and on broken ones; the embedded server recording real connections of the load generator —
// a PQ key share, a HelloRetryRequest to get one, a classical client, a resumption — and a
// malformed and an oversized ClientHello, each recorded as such and refused; the writer's
// bound; and the summary by client computed from what was stored.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "client/load_runner.h"
#include "core/text_table.h"
#include "net/socket.h"
#include "report/client_summary.h"
#include "results/client_log.h"
#include "server/embedded_server.h"
#include "test_paths.h"
#include "tls/algorithms.h"
#include "tls/cert_chain.h"
#include "tls/client_hello.h"
#include "tls/client_record.h"

namespace pqc {
namespace {

std::vector<uint8_t> Corpus(const std::string& name) {
  std::ifstream in(std::string(PQC_CORPUS_DIR) + "/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool Has(const std::vector<uint16_t>& v, uint16_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(ClientHelloTest, ReadsWhatOpenSsl35OffersWithAHybridKeyShare) {
  const std::vector<uint8_t> bytes = Corpus("openssl35-hybrid");
  ASSERT_GT(bytes.size(), 1000u);
  auto h = ParseClientHello(bytes);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->bytes, bytes.size());
  EXPECT_EQ(h->legacy_version, 0x0303);
  EXPECT_EQ(h->versions, (std::vector<uint16_t>{0x0304, 0x0303}));
  EXPECT_EQ(h->groups, (std::vector<uint16_t>{0x11EC, 0x001D}));  // X25519MLKEM768, X25519
  EXPECT_EQ(h->key_shares, (std::vector<uint16_t>{0x11EC}));      // a share for the first only
  EXPECT_TRUE(Has(h->sigalgs, 0x0905)) << "mldsa65 offered by default";
  EXPECT_TRUE(Has(h->ciphers, 0x1301));
  EXPECT_EQ(h->grease, 0u);
  EXPECT_TRUE(IsPostQuantumGroupName(OfferedGroupName(h->key_shares[0])));
  EXPECT_FALSE(IsPostQuantumGroupName(OfferedGroupName(h->groups[1])));
  // ALPN and SNI when the client sends them.
  auto named = ParseClientHello(Corpus("openssl35-mldsa-sigalgs"));
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named->alpn, (std::vector<std::string>{"http/1.1"}));
  EXPECT_EQ(named->sni, "localhost");
  EXPECT_EQ(named->sigalgs, (std::vector<uint16_t>{0x0905, 0x0403}));
}

TEST(ClientHelloTest, ReadsOpenSsl30AndTls12Hellos) {
  auto h30 = ParseClientHello(Corpus("openssl30-system"));
  ASSERT_TRUE(h30.ok()) << h30.error().message;
  EXPECT_FALSE(h30->key_shares.empty());
  for (uint16_t g : h30->key_shares) EXPECT_FALSE(IsPostQuantumGroupName(OfferedGroupName(g)));
  auto h12 = ParseClientHello(Corpus("openssl35-tls12"));
  ASSERT_TRUE(h12.ok()) << h12.error().message;
  EXPECT_TRUE(h12->versions.empty()) << "no supported_versions in a TLS 1.2-only hello";
  EXPECT_TRUE(h12->key_shares.empty());
  // The fingerprint names the software, not the connection: the same for equal offers.
  EXPECT_NE(ClientHelloFingerprint(*h30), ClientHelloFingerprint(*h12));
  EXPECT_EQ(ClientHelloFingerprint(*h30), ClientHelloFingerprint(*h30));
}

TEST(ClientHelloTest, BrokenHellosAreErrorsThatSayWhereAndGreaseIsDropped) {
  auto truncated = ParseClientHello(Corpus("truncated"));
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message.find("malformed ClientHello"), std::string::npos);
  EXPECT_NE(truncated.error().message.find("at byte"), std::string::npos)
      << truncated.error().message;
  EXPECT_FALSE(ParseClientHello(Corpus("bad-extension-length")).ok());
  std::vector<uint8_t> big(kMaxClientHelloBytes + 1, 0);
  auto oversize = ParseClientHello(big);
  ASSERT_FALSE(oversize.ok());
  EXPECT_NE(oversize.error().message.find("over the 65536-byte limit"), std::string::npos);
  EXPECT_FALSE(ParseClientHello({}).ok());

  // A minimal hello with GREASE in its cipher suites, groups and extensions (as Chromium).
  const std::vector<uint8_t> body_head = [] {
    std::vector<uint8_t> b = {0x03, 0x03};
    b.insert(b.end(), 32, 0x11);                         // random
    b.push_back(0);                                      // session id
    b.insert(b.end(), {0, 4, 0x3A, 0x3A, 0x13, 0x01});   // GREASE + TLS_AES_128_GCM_SHA256
    b.insert(b.end(), {1, 0});                           // compression
    const std::vector<uint8_t> ext = {0x0A, 0x0A, 0, 0,  // GREASE ext
                                      0,    10,   0, 6, 0, 4, 0x5A, 0x5A, 0x11, 0xEC};  // groups
    b.push_back(0);
    b.push_back(static_cast<uint8_t>(ext.size()));
    b.insert(b.end(), ext.begin(), ext.end());
    return b;
  }();
  std::vector<uint8_t> msg = {1, 0, 0, static_cast<uint8_t>(body_head.size())};
  msg.insert(msg.end(), body_head.begin(), body_head.end());
  auto g = ParseClientHello(msg);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->ciphers, (std::vector<uint16_t>{0x1301}));
  EXPECT_EQ(g->groups, (std::vector<uint16_t>{0x11EC}));
  EXPECT_EQ(g->extensions, (std::vector<uint16_t>{10}));
  EXPECT_EQ(g->grease, 3u);
}

class ObservatoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / "pqc-observatory-XXXXXX").string();
    ASSERT_NE(mkdtemp(dir_.data()), nullptr);
    auto chain = MakeChain(ParseChainSpec("ecdsa-p256").value());
    ASSERT_TRUE(chain.ok()) << chain.error().message;
    chain_ = std::make_unique<CertChain>(std::move(*chain));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  LoadOptions Options(const SocketAddress& addr, std::vector<std::string> groups,
                      std::vector<std::string> key_shares, ConnMode mode) {
    LoadOptions o;
    o.target = addr;
    o.mix = {{mode, 1.0}};
    o.mode_text = std::string(ConnModeName(mode));
    o.rate = 40;
    o.duration = 250'000'000;
    o.warmup = mode == ConnMode::kResume ? 100'000'000 : 0;
    o.tls.groups = std::move(groups);
    o.tls.key_shares = std::move(key_shares);
    o.tls.trust_anchors = {chain_->root().cert.get()};
    o.expect_group = "X25519MLKEM768";
    o.timeout = 5'000'000'000;
    o.max_lag_p99 = 10'000'000'000;
    o.max_cpu_share = 10;
    return o;
  }

  // SendRaw: a TCP connection that sends `bytes` and waits (bounded) for the server to close.
  static bool ServerCloses(const SocketAddress& addr, const std::vector<uint8_t>& bytes) {
    auto fd = ConnectTcpNonBlocking(addr);
    if (!fd.ok()) return false;
    pollfd p{fd->get(), POLLOUT, 0};
    poll(&p, 1, 2000);
    size_t off = 0;
    for (int spins = 0; off < bytes.size() && spins < 2000; ++spins) {
      ssize_t n = send(fd->get(), bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n > 0) off += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN) break;
      if (n <= 0) poll(&p, 1, 5);
    }
    char buf[4096];
    for (int i = 0; i < 100; ++i) {  // ≤ 5 s
      pollfd r{fd->get(), POLLIN, 0};
      if (poll(&r, 1, 50) <= 0) continue;
      ssize_t n = recv(fd->get(), buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN)) return true;  // closed (an alert came first)
    }
    return false;
  }

  std::string dir_;
  std::unique_ptr<CertChain> chain_;
};

TEST_F(ObservatoryTest, TheServerRecordsWhatEachClientOfferedAndGot) {
  const std::string file = dir_ + "/clients.sqlite";
  auto log = results::ClientLogWriter::Open(file);
  ASSERT_TRUE(log.ok()) << log.error().message;
  ServerOptions so;
  so.listen = ParseAddress("127.0.0.1:0").value();
  so.chains = {chain_.get()};
  // Two preference tuples: an X25519-only share gets a HelloRetryRequest for X25519MLKEM768.
  so.tls.groups = "X25519MLKEM768/X25519";
  so.clients = log->get();
  auto server = EmbeddedServer::Start(so);
  ASSERT_TRUE(server.ok()) << server.error().message;
  const SocketAddress addr = (*server)->address();
  struct Arm {
    std::vector<std::string> groups;
    std::vector<std::string> key_shares;
    ConnMode mode;
    const char* group;
  };
  uint64_t expected = 0;
  for (const Arm& a :
       {Arm{{"X25519MLKEM768", "X25519"}, {"X25519MLKEM768"}, ConnMode::kFresh, "X25519MLKEM768"},
        Arm{{"X25519MLKEM768", "X25519"}, {"X25519"}, ConnMode::kFresh, "X25519MLKEM768"},
        Arm{{"X25519"}, {}, ConnMode::kFresh, "X25519"},
        Arm{{"X25519MLKEM768"}, {}, ConnMode::kResume, "X25519MLKEM768"}}) {
    LoadOptions o = Options(addr, a.groups, a.key_shares, a.mode);
    o.expect_group = a.group;
    auto r = RunLoad(o, nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const ConnectionRecord& c : r->connections) {
      ASSERT_TRUE(c.ok()) << c.error_detail;
      ++expected;
    }
  }
  // A ClientHello record whose message is garbage, and one over 64 KiB: each refused.
  std::vector<uint8_t> junk = {0x16, 0x03, 0x01, 0x00, 0x08, 1, 0, 0, 4, 0xde, 0xad, 0xbe, 0xef};
  EXPECT_TRUE(ServerCloses(addr, junk));
  std::vector<uint8_t> huge;
  const size_t body = kMaxClientHelloBytes + 1000;  // over the limit, under OpenSSL's
  for (size_t sent = 0, left = body + 4; left > 0;) {
    const size_t n = std::min<size_t>(left, 16384);
    huge.insert(huge.end(),
                {0x16, 0x03, 0x01, static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n & 0xff)});
    for (size_t i = 0; i < n; ++i, ++sent) {
      uint8_t b = 0;
      if (sent == 0) b = 1;
      if (sent == 1) b = static_cast<uint8_t>(body >> 16);
      if (sent == 2) b = static_cast<uint8_t>(body >> 8);
      if (sent == 3) b = static_cast<uint8_t>(body);
      huge.push_back(b);
    }
    left -= n;
  }
  EXPECT_TRUE(ServerCloses(addr, huge));
  (*server)->Stop();
  (*server)->Wait();
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_EQ((*log)->dropped(), 0u);

  auto rows = results::ReadClientLog(file);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  std::map<std::string, int> outcomes;
  for (const results::ClientLogRow& r : *rows) ++outcomes[r.outcome];
  EXPECT_EQ(outcomes["ok"], static_cast<int>(expected));
  EXPECT_EQ(outcomes["malformed"], 1);
  EXPECT_EQ(outcomes["oversize"], 1);
  int hrr = 0, resumed = 0, classical = 0;
  for (const results::ClientLogRow& r : *rows) {
    SCOPED_TRACE(r.id);
    if (r.outcome == "malformed") {
      EXPECT_NE(r.failure.find("malformed ClientHello"), std::string::npos);
    }
    if (r.outcome == "oversize") {
      EXPECT_NE(r.failure.find("65536-byte limit"), std::string::npos);
    }
    if (r.outcome != "ok") continue;
    EXPECT_EQ(r.peer.rfind("127.0.0.1:", 0), 0u) << r.peer;
    EXPECT_GE(r.hello_segments, 1);
    EXPECT_FALSE(r.fingerprint.empty());
    EXPECT_EQ(r.versions.rfind("TLSv1.3", 0), 0u) << r.versions;
    EXPECT_FALSE(r.cipher.empty());
    if (r.hrr) {
      ++hrr;
      EXPECT_EQ(r.key_shares, "X25519");
      EXPECT_EQ(r.group, "X25519MLKEM768");
    }
    if (r.resumed) {
      ++resumed;
      EXPECT_TRUE(r.psk_offered);
      EXPECT_EQ(r.signature_scheme, "");
    } else {
      EXPECT_EQ(r.signature_scheme, "ecdsa_secp256r1_sha256");
    }
    if (r.group == "X25519") {
      ++classical;
      EXPECT_EQ(r.groups, "X25519");
    }
  }
  EXPECT_GE(hrr, 5);
  EXPECT_GE(resumed, 5);
  EXPECT_GE(classical, 5);

  // The summary by client: the load generator sends no User-Agent, so each kind of offer is a
  // fingerprint of its own; the shares add up to what was stored.
  const report::ClientSummary s = report::SummarizeClients(*rows, file);
  EXPECT_EQ(s.all.connections, rows->size());
  EXPECT_EQ(s.all.completed, expected);
  EXPECT_EQ(s.all.pq_after_hrr, static_cast<uint64_t>(hrr));
  EXPECT_EQ(s.all.classical, static_cast<uint64_t>(classical));
  EXPECT_EQ(s.all.pq_negotiated + s.all.classical, s.all.completed);
  EXPECT_EQ(s.all.malformed, 2u);
  EXPECT_GE(s.clients.size(), 4u);  // hybrid share, X25519 share, classical, resumption, junk
  std::ostringstream html;
  report::WriteClientSummaryHtml(html, s);
  EXPECT_NE(html.str().find("clients-chart"), std::string::npos);
  const auto json = report::ClientSummaryJson(s);
  EXPECT_EQ(json["all"]["connections"].get<uint64_t>(), rows->size());
}

TEST(ClientLogTest, TheWriterKeepsAtMostItsCapAndCountsTheRest) {
  const std::string file =
      (std::filesystem::temp_directory_path() / fmt::format("pqc-clientlog-{}.sqlite", getpid()))
          .string();
  std::filesystem::remove(file);
  {
    auto log = results::ClientLogWriter::Open(file, 3);
    ASSERT_TRUE(log.ok()) << log.error().message;
    for (int i = 0; i < 5; ++i) {
      ClientRecord r;
      r.user_agent = fmt::format("client {}", i);
      (*log)->Add(std::move(r));
    }
    ASSERT_TRUE((*log)->Close().ok());
    EXPECT_EQ((*log)->written(), 3u);
    EXPECT_EQ((*log)->dropped(), 2u);
  }
  auto rows = results::ReadClientLog(file);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[2].user_agent, "client 2");
  // Not a client log: named.
  auto bad = results::ReadClientLog(std::string(PQC_CORPUS_DIR) + "/truncated");
  ASSERT_FALSE(bad.ok());
  // (the reader opens the log read-only, which leaves SQLite's WAL files behind it)
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file + suffix);
}

// The stored outcome is read back as the type the server recorded, so that the summary counts
// by enum: every name round-trips, and a name no outcome has is none (counted as failed).
TEST(ClientSummaryTest, OutcomesAreCountedByTypeNotByText) {
  for (ClientOutcome o : {ClientOutcome::kOk, ClientOutcome::kFailed, ClientOutcome::kMalformed,
                          ClientOutcome::kOversize}) {
    EXPECT_EQ(ParseClientOutcome(ClientOutcomeName(o)), o);
  }
  EXPECT_FALSE(ParseClientOutcome("completed").has_value());
  std::vector<results::ClientLogRow> rows(4);
  rows[0].outcome = "ok";
  rows[1].outcome = "oversize";
  rows[2].outcome = "malformed";
  rows[3].outcome = "something newer";
  const report::ClientSummary s = report::SummarizeClients(rows, "clients.sqlite");
  EXPECT_EQ(s.all.connections, 4u);
  EXPECT_EQ(s.all.completed, 1u);
  EXPECT_EQ(s.all.malformed, 2u);
}

// The summary by client in Markdown (`report --clients --format md`): a client's User-Agent is
// what a stranger sent; it stays text in its cell — no HTML, no link, no extra cell or row
// (issue 43: only '|' was escaped).
TEST(ClientSummaryTest, AStrangersUserAgentStaysTextInMarkdown) {
  results::ClientLogRow row;
  row.outcome = "completed";
  row.user_agent = "<img src=x onerror=alert(1)> [click](http://198.18.0.9/) a|b\\|c\n| row";
  const report::ClientSummary s = report::SummarizeClients({row}, "clients.sqlite");
  std::ostringstream md;
  report::WriteClientSummaryTable(md, s, /*markdown=*/true);
  const std::string text = md.str();
  EXPECT_EQ(text.find("| <img"), std::string::npos) << text;
  EXPECT_NE(text.find("\\<img src=x"), std::string::npos) << text;
  EXPECT_EQ(text.find("[click](http"), std::string::npos) << text;
  EXPECT_NE(text.find("[click\\](http://198.18.0.9/)"), std::string::npos) << text;
  EXPECT_NE(text.find("a\\|b\\\\\\|c?\\| row"), std::string::npos) << text;
  // The client's row has as many unescaped '|' as the header row.
  auto cells = [](const std::string& line) {
    size_t n = 0;
    for (size_t i = 0; i < line.size(); ++i) n += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    return n;
  };
  std::istringstream lines(text);
  std::string header, rule, client;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    if (header.empty()) {
      header = line;
    } else if (line.find("<img") != std::string::npos) {
      client = line;
    }
  }
  ASSERT_FALSE(client.empty()) << text;
  EXPECT_EQ(cells(client), cells(header)) << client;
  EXPECT_EQ(MarkdownCell("p99 [1.2, 3.4] ms > +1%"), "p99 [1.2, 3.4] ms > +1%");
}

}  // namespace
}  // namespace pqc
