// The rendezvous's security (issue 30): real loopback TCP, shard 0 (Leader::Open) in one
// thread, real followers (Follower::Join) and strangers in others. A stranger with no key, a
// wrong key, a replayed handshake or a silent connection is refused and logged while the real
// shards join; a fake shard 0 or an altered announcement is refused by the follower; a
// follower loads only its own serve host, whatever port shard 0 names.
#include "scenario/rendezvous.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "net/socket.h"
#include "rendezvous_harness.h"
#include "scenario/rendezvous_auth.h"

namespace pqc::scenario {
namespace {

namespace fs = std::filesystem;

using namespace rendezvous_harness;  // NOLINT(google-build-using-namespace)

const RendezvousKey kOtherKey{"fedcba9876543210fedcba9876543210"};

// Proxy: relays one connection from `port()` to `to`, recording what the joiner sent and
// passing shard 0's bytes through `alter` (the network an attacker controls).
class Proxy {
 public:
  Proxy(uint16_t to, std::function<std::string(std::string)> alter = nullptr)
      : to_(to), alter_(std::move(alter)) {
    listener_ = std::move(*ListenTcp(Loopback(0), 4, false));
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    ::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&ss), &len);
    port_ = AddressFromSockaddr(reinterpret_cast<sockaddr*>(&ss), len).port();
    thread_ = std::thread([this] { Relay(); });
  }
  ~Proxy() {
    stop_ = true;
    thread_.join();
  }
  uint16_t port() const { return port_; }
  std::string from_joiner() {
    std::lock_guard lock(mu_);
    return from_joiner_;
  }

 private:
  void Relay() {
    ScopedFd in;
    while (!stop_ && !in.valid()) {
      pollfd p{listener_.get(), POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) in = std::move(*AcceptNonBlocking(listener_.get()));
    }
    if (stop_) return;
    ScopedFd out = Dial(to_);
    while (!stop_) {
      pollfd p[2] = {{in.get(), POLLIN, 0}, {out.get(), POLLIN, 0}};
      if (::poll(p, 2, 50) <= 0) continue;
      char buf[8192];
      if (p[0].revents != 0) {
        const ssize_t n = ::recv(in.get(), buf, sizeof buf, 0);
        if (n <= 0) return;
        std::lock_guard lock(mu_);
        from_joiner_.append(buf, static_cast<size_t>(n));
        Write(out.get(), {buf, static_cast<size_t>(n)});
      }
      if (p[1].revents != 0) {
        const ssize_t n = ::recv(out.get(), buf, sizeof buf, 0);
        if (n <= 0) return;
        std::string chunk(buf, static_cast<size_t>(n));
        Write(in.get(), alter_ ? alter_(chunk) : chunk);
      }
    }
  }
  uint16_t to_;
  std::function<std::string(std::string)> alter_;
  ScopedFd listener_;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::string from_joiner_;
  std::thread thread_;
};

// Value: what a Result holds (a failed test, and "", when it holds an error).
std::string Value(const Result<std::string>& r) {
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : std::string();
}

TEST(RendezvousAuth, TagsDependOnEverythingTheyCover) {
  const auto SessionKey = [](auto&&... a) { return Value(scenario::SessionKey(a...)); };
  const auto MessageTag = [](auto&&... a) { return Value(scenario::MessageTag(a...)); };
  const std::string s = SessionKey(kKey, "l1", "f1");
  const std::string t = MessageTag(s, Direction::kFromLeader, 0, "TRIAL seq=0", "roots");
  EXPECT_EQ(t.size(), kTagHex);
  EXPECT_EQ(t, MessageTag(s, Direction::kFromLeader, 0, "TRIAL seq=0", "roots"));
  EXPECT_NE(t, MessageTag(s, Direction::kFromFollower, 0, "TRIAL seq=0", "roots"));
  EXPECT_NE(t, MessageTag(s, Direction::kFromLeader, 1, "TRIAL seq=0", "roots"));
  EXPECT_NE(t, MessageTag(s, Direction::kFromLeader, 0, "TRIAL seq=1", "roots"));
  EXPECT_NE(t, MessageTag(s, Direction::kFromLeader, 0, "TRIAL seq=0", "rootz"));
  EXPECT_NE(t, MessageTag(SessionKey(kKey, "l2", "f1"), Direction::kFromLeader, 0, "TRIAL seq=0",
                          "roots"));
  EXPECT_NE(t, MessageTag(SessionKey(kOtherKey, "l1", "f1"), Direction::kFromLeader, 0,
                          "TRIAL seq=0", "roots"));
  EXPECT_TRUE(SameTag(t, t));
  EXPECT_FALSE(SameTag(t, t.substr(1)));

  const std::string tagged = "WELCOME mac=" + t;  // SplitTag's views point into it
  auto split = SplitTag(tagged);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->message, "WELCOME");
  EXPECT_EQ(split->tag, t);
  EXPECT_FALSE(SplitTag("WELCOME").has_value());
  EXPECT_FALSE(SplitTag("WELCOME mac=" + t.substr(1)).has_value());
  EXPECT_FALSE(SplitTag("WELCOME mac=" + std::string(64, 'G')).has_value());

  auto n1 = NewNonce(), n2 = NewNonce();
  ASSERT_TRUE(n1.ok() && n2.ok());
  EXPECT_EQ(n1->size(), kNonceHex);
  EXPECT_NE(*n1, *n2);
  auto m = ParseMessage("NONCE n=" + *n1);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->nonce, *n1);
  EXPECT_EQ(FormatMessage(*m), "NONCE n=" + *n1);
  EXPECT_FALSE(ParseMessage("NONCE n=12").ok());
  // An announcement has no field for a host: one naming another host is not a message.
  EXPECT_TRUE(ParseMessage("TRIAL seq=1 start=1 port=2 roots=0").ok());
  auto with_host = ParseMessage("TRIAL seq=1 start=1 port=2 roots=0 host=10.0.0.1");
  ASSERT_FALSE(with_host.ok());
  EXPECT_NE(with_host.error().message.find("an unknown field"), std::string::npos);
  EXPECT_FALSE(ParseMessage("TRIAL seq=1 start=1 port=2 roots=0 netns=/run/netns/other").ok());
  EXPECT_FALSE(ParseMessage("NONCE n=" + std::string(32, 'A')).ok());
}

TEST(RendezvousAuth, KeyFileMustBePrivateAndLongEnough) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("pqc-key-test-{}", ::getpid());
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& bytes, mode_t mode) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << bytes;
    ::chmod(p.c_str(), mode);
    return p.string();
  };
  auto good = LoadRendezvousKey(write("good", std::string(32, 'k'), 0600));
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->bytes, std::string(32, 'k'));
  EXPECT_TRUE(LoadRendezvousKey(write("readonly", std::string(16, 'k'), 0400)).ok());

  auto open = LoadRendezvousKey(write("open", std::string(32, 'k'), 0644));
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.error().message.find("mode 0644"), std::string::npos) << open.error().message;
  EXPECT_NE(open.error().message.find("chmod 600"), std::string::npos);
  auto short_key = LoadRendezvousKey(write("short", "secret", 0600));
  ASSERT_FALSE(short_key.ok());
  EXPECT_NE(short_key.error().message.find("6 bytes"), std::string::npos);
  EXPECT_NE(short_key.error().message.find("/dev/urandom"), std::string::npos);
  auto missing = LoadRendezvousKey((dir / "none").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
  auto directory = LoadRendezvousKey(dir.string());
  EXPECT_FALSE(directory.ok());
  fs::remove_all(dir);
}

TEST(Rendezvous, WithoutAKeyOnlyLoopback) {
  Log log;
  auto l = Leader::Open(*ParseAddress("0.0.0.0:1"), {0, 2}, kIdentity, nullptr,
                        MonotonicNow() + kSecond, log.f);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("not a loopback address, and no --rendezvous-key"),
            std::string::npos)
      << l.error().message;
  auto f = Follower::Join(*ParseAddress("10.1.2.3:7000"), Loopback(0), {1, 2}, kIdentity, nullptr,
                          MonotonicNow() + kSecond);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("--rendezvous-key FILE"), std::string::npos);
}

// Strangers of every kind try while the two real followers join: each is refused and logged,
// and the study's rendezvous completes with exactly the real shards.
TEST(Rendezvous, StrangersAreRefusedAndTheRealShardsJoin) {
  const uint16_t port = FreePort();
  LeaderThread leader(port, 3, &kKey);

  // A silent connection, held open throughout: it must delay no one.
  ScopedFd silent = Dial(port);
  // No key: a plain HELLO with the right (computable) digests.
  ScopedFd plain = Dial(port);
  Write(plain.get(),
        "HELLO shard=1 count=3 version=0.1.0-test scenario=aaaa options=bbbb "
        "plan=cccc\n");
  // A wrong key: a real follower with another key.
  auto wrong = Join(port, 1, 3, &kOtherKey);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("shard 0"), std::string::npos) << wrong.error().message;
  // Garbage.
  ScopedFd garbage = Dial(port);
  Write(garbage.get(), "\x16\x03\x01 not a rendezvous line\n");
  EXPECT_NE(ReadAll(plain.get(), 2000).find("REFUSE"), std::string::npos);
  EXPECT_NE(ReadAll(garbage.get(), 2000).find("REFUSE"), std::string::npos);

  // The real shard 1, through a proxy that records its bytes; then its handshake replayed.
  Proxy tap(port);
  auto one = Join(tap.port(), 1, 3, &kKey);
  ASSERT_TRUE(one.ok()) << one.error().message;
  const std::string recorded = tap.from_joiner();
  ASSERT_NE(recorded.find("HELLO shard=1"), std::string::npos);
  ScopedFd replay = Dial(port);
  Write(replay.get(), recorded);
  const std::string replay_answer = ReadAll(replay.get(), 3000);
  EXPECT_NE(replay_answer.find("NONCE"), std::string::npos);  // a fresh nonce, then ...
  EXPECT_NE(replay_answer.find("REFUSE"), std::string::npos) << replay_answer;
  EXPECT_EQ(replay_answer.find("WELCOME"), std::string::npos) << replay_answer;

  auto two = Join(port, 2, 3, &kKey);
  ASSERT_TRUE(two.ok()) << two.error().message;
  auto& l = leader.result();
  ASSERT_TRUE(l.ok()) << l.error().message;
  const std::string log = leader.log();
  EXPECT_NE(log.find("shard 1 joined"), std::string::npos) << log;
  EXPECT_NE(log.find("shard 2 joined"), std::string::npos) << log;
  EXPECT_NE(log.find("requires the rendezvous key"), std::string::npos) << log;
  EXPECT_NE(log.find("fails authentication"), std::string::npos) << log;
  EXPECT_NE(log.find("malformed"), std::string::npos) << log;
  size_t refused = 0;
  for (size_t at = 0; (at = log.find("refused a connection", at)) != std::string::npos; ++at) {
    ++refused;
  }
  EXPECT_GE(refused, 4u) << log;  // no key, wrong key, garbage, replay

  // The joined shards take part in a trial; the silent stranger never mattered.
  ASSERT_TRUE(l->Announce(0, 123, 4433, "PEM").ok());
  auto t1 = one->Next(MonotonicNow() + 5 * kSecond);
  auto t2 = two->Next(MonotonicNow() + 5 * kSecond);
  ASSERT_TRUE(t1.ok() && t2.ok());
  EXPECT_EQ(t1->roots_pem, "PEM");
  ASSERT_TRUE(one->Done(0, true).ok());
  ASSERT_TRUE(two->Done(0, false).ok());
  auto finished = l->WaitDone(0, MonotonicNow() + 5 * kSecond);
  EXPECT_TRUE(finished.lost.empty());
  EXPECT_EQ(finished.invalid, std::vector<uint32_t>{2});
}

// The clock rounds on one machine: an offset within the round trip, which is small; a trial
// shard 0 cannot run reaches the follower as SKIP with its reason, and the end as END.
TEST(Rendezvous, ClockOffsetSkipAndEnd) {
  const uint16_t port = FreePort();
  LeaderThread leader(port, 2, nullptr);
  auto f = Join(port, 1, 2, nullptr);
  ASSERT_TRUE(f.ok()) << f.error().message;
  auto& l = leader.result();
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_GT(f->clock().rtt_ns, 0);
  EXPECT_LT(f->clock().rtt_ns, 100'000'000);  // loopback: well under 100 ms, even when busy
  EXPECT_LE(std::llabs(f->clock().offset_ns), f->clock().rtt_ns);  // one clock here
  ASSERT_TRUE(l->Skip(4, "probe slh-dsa: TLS\nfails").ok());
  auto skip = f->Next(MonotonicNow() + 5 * kSecond);
  ASSERT_TRUE(skip.ok()) << skip.error().message;
  EXPECT_TRUE(skip->skip);
  EXPECT_EQ(skip->seq, 4u);
  EXPECT_EQ(skip->text, "probe slh-dsa: TLS fails");  // one line
  ASSERT_TRUE(f->Done(4, false).ok());
  auto finished = l->WaitDone(4, MonotonicNow() + 5 * kSecond);
  EXPECT_TRUE(finished.lost.empty());
  EXPECT_EQ(finished.invalid, std::vector<uint32_t>{1});
  l->End();
  auto end = f->Next(MonotonicNow() + 5 * kSecond);
  ASSERT_TRUE(end.ok());
  EXPECT_TRUE(end->end);
}

// A follower that dies or stalls during a trial is lost, not waited for beyond the deadline;
// the others' answers count, and they are told when the study stops.
TEST(Rendezvous, LostFollowersAreNamedAndTheOthersTold) {
  const uint16_t port = FreePort();
  LeaderThread leader(port, 4, &kKey);
  auto one = Join(port, 1, 4, &kKey);
  auto two = Join(port, 2, 4, &kKey);
  auto three = Join(port, 3, 4, &kKey);
  ASSERT_TRUE(one.ok() && two.ok() && three.ok());
  auto& l = leader.result();
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_TRUE(l->Announce(5, 1, 4433, "").ok());
  ASSERT_TRUE(one->Next(MonotonicNow() + 5 * kSecond).ok());
  ASSERT_TRUE(three->Next(MonotonicNow() + 5 * kSecond).ok());
  { Follower dead = std::move(*one); }  // shard 1 exits: its connection closes
  // shard 2 stalls (never answers); shard 3 answers, after the deadline has been spent on 2.
  ASSERT_TRUE(three->Done(5, true).ok());
  const Nanos before = MonotonicNow();
  auto finished = l->WaitDone(5, MonotonicNow() + kSecond);
  EXPECT_LT(MonotonicNow() - before, 3 * kSecond);
  ASSERT_EQ(finished.lost.size(), 2u);
  EXPECT_EQ(finished.lost[0].first, 1u);
  EXPECT_NE(finished.lost[0].second.find("closed the connection"), std::string::npos);
  EXPECT_EQ(finished.lost[1].first, 2u);
  EXPECT_NE(finished.lost[1].second.find("timed out"), std::string::npos);
  EXPECT_TRUE(finished.invalid.empty());
  EXPECT_EQ(l->followers(), 1u);  // shard 3 only
  l->Stop("lost shard 1");
  auto t = three->Next(MonotonicNow() + 5 * kSecond);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->stop);
  EXPECT_EQ(t->text, "lost shard 1");
}

// A stranger in shard 0's place (the port taken first, or the path between) cannot steer a
// follower: without the key it cannot answer the follower's NONCE with a valid WELCOME.
TEST(Rendezvous, AFakeShardZeroIsRefused) {
  const uint16_t port = FreePort();
  auto listener = ListenTcp(Loopback(port), 4, false);
  ASSERT_TRUE(listener.ok());
  std::thread fake([&] {
    pollfd p{listener->get(), POLLIN, 0};
    ::poll(&p, 1, 5000);
    auto fd = AcceptNonBlocking(listener->get());
    ASSERT_TRUE(fd.ok() && fd->valid());
    ReadAll(fd->get(), 300);  // the follower's NONCE
    Write(fd->get(), "NONCE n=00112233445566778899aabbccddeeff\n");
    ReadAll(fd->get(), 300);  // its HELLO
    Write(fd->get(), "WELCOME mac=" + std::string(64, '0') + "\n");
    Write(fd->get(), "TRIAL seq=0 start=1 port=22 roots=0 mac=" + std::string(64, '0') + "\n");
    ReadAll(fd->get(), 1000);
  });
  auto f = Join(port, 1, 2, &kKey, 5 * kSecond);
  fake.join();
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("did not prove the rendezvous key"), std::string::npos)
      << f.error().message;
}

// An announcement altered on the way (here: the target's port) fails its tag: the follower
// stops instead of loading what it was not sent.
TEST(Rendezvous, AnAlteredAnnouncementIsRefused) {
  const uint16_t port = FreePort();
  LeaderThread leader(port, 2, &kKey);
  Proxy mitm(port, [](std::string chunk) {
    const size_t at = chunk.find("port=4433");
    if (at != std::string::npos) chunk.replace(at, 9, "port=2222");
    return chunk;
  });
  auto f = Join(mitm.port(), 1, 2, &kKey);
  ASSERT_TRUE(f.ok()) << f.error().message;
  auto& l = leader.result();
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_TRUE(l->Announce(0, 1, 4433, "").ok());
  auto t = f->Next(MonotonicNow() + 5 * kSecond);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("fails authentication"), std::string::npos) << t.error().message;
}

// The host a follower loads is its own serve host; shard 0 names only the port.
TEST(Rendezvous, TheFollowerLoadsItsOwnServeHost) {
  const uint16_t port = FreePort();
  LeaderThread leader(port, 2, nullptr);
  auto f = Follower::Join(Loopback(port), *ParseAddress("127.0.0.9:0"), {1, 2}, kIdentity, nullptr,
                          MonotonicNow() + 10 * kSecond);
  ASSERT_TRUE(f.ok()) << f.error().message;
  auto& l = leader.result();
  ASSERT_TRUE(l.ok());
  ASSERT_TRUE(l->Announce(3, 1, 5555, "").ok());
  auto t = f->Next(MonotonicNow() + 5 * kSecond);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->target.ToString(), "127.0.0.9:5555");
  EXPECT_NE(leader.log().find("no key: loopback only"), std::string::npos);
}

// One side with a key, the other without: each says what to change; a keyless shard 0 goes
// on waiting for its real shard.
TEST(Rendezvous, AKeyOnOneSideOnlyIsNamed) {
  const uint16_t port = FreePort();
  LeaderThread keyless(port, 2, nullptr);
  auto keyed = Join(port, 1, 2, &kKey);
  ASSERT_FALSE(keyed.ok());
  EXPECT_NE(keyed.error().message.find("this shard 0 has none"), std::string::npos)
      << keyed.error().message;
  auto plain = Join(port, 1, 2, nullptr);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  ASSERT_TRUE(keyless.result().ok());
  EXPECT_NE(keyless.log().find("it has a --rendezvous-key, this shard 0 has none"),
            std::string::npos)
      << keyless.log();

  const uint16_t port2 = FreePort();
  LeaderThread keyed_leader(port2, 2, &kKey);
  auto no_key = Join(port2, 1, 2, nullptr);
  ASSERT_FALSE(no_key.ok());
  EXPECT_NE(no_key.error().message.find("--rendezvous-key"), std::string::npos)
      << no_key.error().message;
  auto with_key = Join(port2, 1, 2, &kKey);
  ASSERT_TRUE(with_key.ok()) << with_key.error().message;
  ASSERT_TRUE(keyed_leader.result().ok());
}

// A shard that proved the key but runs another plan ends the study at once, as before.
TEST(Rendezvous, AProvenShardWithAnotherPlanEndsTheWait) {
  const uint16_t port = FreePort();
  LeaderThread leader(port, 2, &kKey);
  PlanIdentity other = kIdentity;
  other.plan = "dddd";
  auto f = Follower::Join(Loopback(port), Loopback(0), {1, 2}, other, &kKey,
                          MonotonicNow() + 10 * kSecond);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("another plan"), std::string::npos) << f.error().message;
  auto& l = leader.result();
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("another plan"), std::string::npos);
}

}  // namespace
}  // namespace pqc::scenario
