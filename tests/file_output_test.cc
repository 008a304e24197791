// Every file the tool writes (core/file_output.h), in a directory others could write into (the
// review of issue 43): a symbolic link planted at the path is replaced, never written through;
// a secret's mode is 0600 from its creation; no temporary of a fixed name, and none left
// behind; a file not committed leaves the old one whole. Then the HAProxy target's chain-and-key
// file (0600, it was 0644 through std::ofstream) and the results database (never opened
// through a link).
#include "core/file_output.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "results/sqlite_db.h"
#include "target/haproxy_config.h"

namespace pqc {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / fmt::format("pqc-file-output-{}", ::getpid());
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

mode_t ModeOf(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode;
}

std::set<std::string> Names(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

mode_t Umask() {
  const mode_t m = ::umask(022);
  ::umask(m);
  return m;
}

TEST(FileOutput, APlantedLinkIsReplacedNotWrittenThrough) {
  TempDir d;
  const fs::path victim = d.path / "victim";
  std::ofstream(victim) << "the user's file\n";
  const fs::path out = d.path / "summary.json";
  fs::create_symlink(victim, out);
  ASSERT_TRUE(WriteFileAtomically(out.string(), "{}\n", kPublicFile, "test").ok());
  EXPECT_EQ(Read(victim), "the user's file\n");
  EXPECT_TRUE(S_ISREG(ModeOf(out)));
  EXPECT_EQ(Read(out), "{}\n");
  EXPECT_EQ(Names(d.path), (std::set<std::string>{"summary.json", "victim"}));
}

TEST(FileOutput, ModesFromTheStartAndNoFixedTemporaryName) {
  TempDir d;
  const fs::path key = d.path / "leaf.key.pem";
  auto a = OutputFile::Create(key.string(), kSecretFile, "test");
  auto b = OutputFile::Create(key.string(), kSecretFile, "test");
  ASSERT_TRUE(a.ok() && b.ok());
  // Two at once: two temporaries, each private while written.
  const std::set<std::string> during = Names(d.path);
  ASSERT_EQ(during.size(), 2u);
  for (const std::string& name : during) {
    EXPECT_EQ(name.rfind(".leaf.key.pem.", 0), 0u) << name;
    EXPECT_EQ(ModeOf(d.path / name) & 0777, 0600u) << name;
  }
  a->stream() << "first";
  b->stream() << "second";
  ASSERT_TRUE(a->Commit().ok());
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(Read(key), "second");
  EXPECT_EQ(ModeOf(key) & 0777, 0600u);
  EXPECT_EQ(Names(d.path), (std::set<std::string>{"leaf.key.pem"}));

  const fs::path pub = d.path / "report.html";
  ASSERT_TRUE(WriteFileAtomically(pub.string(), "<html>", kPublicFile, "test").ok());
  EXPECT_EQ(ModeOf(pub) & 0777, 0666u & ~Umask());
}

TEST(FileOutput, NotCommittedLeavesTheOldFileAndNoTemporary) {
  TempDir d;
  const fs::path p = d.path / "samples.csv";
  std::ofstream(p) << "old\n";
  {
    auto f = OutputFile::Create(p.string(), kPublicFile, "--samples");
    ASSERT_TRUE(f.ok());
    f->stream() << "half";
  }
  EXPECT_EQ(Read(p), "old\n");
  EXPECT_EQ(Names(d.path), (std::set<std::string>{"samples.csv"}));
  // The directory gone before the commit: an error naming the file, nothing written.
  auto g = OutputFile::Create((d.path / "sub" / "x.json").string(), kPublicFile, "--json");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("--json: cannot write"), std::string::npos);
  EXPECT_NE(g.error().message.find("x.json"), std::string::npos);
  auto dir_name = OutputFile::Create(d.path.string() + "/", kPublicFile, "--output");
  ASSERT_FALSE(dir_name.ok());
  EXPECT_NE(dir_name.error().message.find("names a directory"), std::string::npos);
}

TEST(FileOutput, HaproxyChainAndKeyIsPrivate) {
  TempDir d;
  std::ofstream(d.path / "chain.pem") << "-----BEGIN CERTIFICATE-----\n";
  std::ofstream(d.path / "key.pem") << "-----BEGIN PRIVATE KEY-----\n";
  target::ServerConfig c;
  c.certs = {{(d.path / "chain.pem").string(), (d.path / "key.pem").string()}};
  const target::HaproxyFiles f = target::HaproxyFilesIn((d.path / "w").string());
  // A link planted where the configuration goes.
  fs::create_directories(d.path / "w");
  std::ofstream(d.path / "victim") << "keep\n";
  fs::create_symlink(d.path / "victim", f.conf);
  ASSERT_TRUE(target::WriteHaproxyFiles(c, LoopbackAddress(4433), f).ok());
  const std::string pem = target::HaproxyCertFile(f, 0);
  EXPECT_EQ(ModeOf(pem) & 0777, 0600u);
  EXPECT_NE(Read(pem).find("PRIVATE KEY"), std::string::npos);
  EXPECT_EQ(Read(d.path / "victim"), "keep\n");
  EXPECT_TRUE(S_ISREG(ModeOf(f.conf)));
}

TEST(FileOutput, TheResultsDatabaseIsNotOpenedThroughALink) {
  TempDir d;
  std::ofstream(d.path / "victim") << "keep\n";
  fs::create_symlink(d.path / "victim", d.path / "results.sqlite");
  auto db = results::Db::Open((d.path / "results.sqlite").string(), true, false);
  EXPECT_FALSE(db.ok());
  EXPECT_EQ(Read(d.path / "victim"), "keep\n");
}

}  // namespace
}  // namespace pqc
