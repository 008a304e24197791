// Tests of src/net on real sockets, loopback only.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/fd.h"
#include "gtest/gtest.h"
#include "link/link.h"
#include "net/address.h"
#include "net/event_loop.h"
#include "net/socket.h"

namespace pqc {
namespace {

constexpr Nanos kMs = 1'000'000;

std::unique_ptr<EventLoop> NewLoop() {
  auto loop = EventLoop::Create();
  EXPECT_TRUE(loop.ok()) << (loop.ok() ? "" : loop.error().message);
  return std::move(loop).value();
}

// RunUntil drives the loop until done() or a generous safety limit; returns done().
template <typename Done>
bool RunUntil(EventLoop& loop, Done done, Nanos limit = 2'000 * kMs) {
  Nanos end = MonotonicNow() + limit;
  while (!done() && MonotonicNow() < end) {
    Status s = loop.RunOnce(10 * kMs);
    if (!s) {
      ADD_FAILURE() << s.error().message;
      return false;
    }
  }
  return done();
}

struct Pipe {
  ScopedFd read;
  ScopedFd write;
};

Pipe MakePipe() {
  int fds[2];
  EXPECT_EQ(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
  return {ScopedFd(fds[0]), ScopedFd(fds[1])};
}

SocketAddress Loopback(uint16_t port) {
  auto a = ParseAddress("127.0.0.1:" + std::to_string(port));
  EXPECT_TRUE(a.ok());
  return *a;
}

// --- address ---

TEST(AddressTest, ParsesIpv4) {
  auto a = ParseAddress("127.0.0.1:8443");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->family(), AF_INET);
  EXPECT_EQ(a->port(), 8443);
  EXPECT_EQ(a->len, sizeof(sockaddr_in));
  EXPECT_EQ(a->ToString(), "127.0.0.1:8443");
}

TEST(AddressTest, ParsesBracketedIpv6) {
  auto a = ParseAddress("[::1]:443");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->family(), AF_INET6);
  EXPECT_EQ(a->port(), 443);
  EXPECT_EQ(a->len, sizeof(sockaddr_in6));
  EXPECT_EQ(a->ToString(), "[::1]:443");
}

TEST(AddressTest, LocalhostIsIpv4LoopbackAndPortZeroIsAllowed) {
  auto a = ParseAddress("localhost:0");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->ToString(), "127.0.0.1:0");
}

TEST(AddressTest, RejectsBadInputWithHelpfulMessage) {
  for (const char* bad : {"", "127.0.0.1", "127.0.0.1:", ":80", "127.0.0.1:65536", "127.0.0.1:8x",
                          "127.0.0.1:-1", "::1:80", "[::1]80", "[::1", "[]:80", "example.com:80",
                          "1.2.3:80", "256.0.0.1:80", "[127.0.0.1]:80", "127.0.0.1:123456"}) {
    auto a = ParseAddress(bad);
    ASSERT_FALSE(a.ok()) << "accepted '" << bad << "'";
    EXPECT_EQ(a.error().kind, ErrorKind::kUsage);
    EXPECT_NE(a.error().message.find(std::string("'") + bad + "'"), std::string::npos)
        << a.error().message;
    EXPECT_NE(a.error().message.find("e.g. 127.0.0.1:8443"), std::string::npos)
        << a.error().message;
  }
}

TEST(AddressTest, TypedPartsNeverGoThroughText) {
  EXPECT_EQ(LoopbackAddress().ToString(), "127.0.0.1:0");
  EXPECT_TRUE(LoopbackAddress(8443).IsLoopback());
  EXPECT_EQ(Ipv4Address({198, 18, 0, 1}, 443).ToString(), "198.18.0.1:443");
  EXPECT_EQ(Ipv4Address({198, 18, 0, 1}, 443).len, sizeof(sockaddr_in));
  // The emulated link's server: the typed address is the one its namespace is given.
  EXPECT_EQ(link::ServerAddress().Host(), link::kServerIp);
}

TEST(AddressTest, AHostWithoutPortIsParsedWithPortZero) {
  EXPECT_EQ(ParseHost("10.0.0.1").value().ToString(), "10.0.0.1:0");
  EXPECT_EQ(ParseHost("::1").value().ToString(), "[::1]:0");
  EXPECT_EQ(ParseHost("localhost").value().ToString(), "127.0.0.1:0");
  for (const char* bad : {"", "[::1]", "example.com", "10.0.0.1:80", "256.0.0.1"}) {
    auto a = ParseHost(bad);
    ASSERT_FALSE(a.ok()) << "accepted '" << bad << "'";
    EXPECT_NE(a.error().message.find(std::string("'") + bad + "'"), std::string::npos)
        << a.error().message;
  }
}

// --- sockets through the event loop ---

TEST(SocketTest, ListenOnPortZeroReportsEphemeralPort) {
  auto listener = ListenTcp(Loopback(0), 16, /*reuse_port=*/true);
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  auto local = LocalAddress(listener->get());
  ASSERT_TRUE(local.ok()) << local.error().message;
  EXPECT_NE(local->port(), 0);
  EXPECT_EQ(local->ToString().rfind("127.0.0.1:", 0), 0u);
}

TEST(SocketTest, AcceptWithNothingPendingIsNotAnError) {
  auto listener = ListenTcp(Loopback(0), 16, false);
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  auto accepted = AcceptNonBlocking(listener->get());
  ASSERT_TRUE(accepted.ok()) << accepted.error().message;
  EXPECT_FALSE(accepted->valid());
}

TEST(SocketTest, ConnectAcceptAndExchangeThroughEventLoop) {
  auto loop = NewLoop();
  auto listener = ListenTcp(Loopback(0), 16, false);
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  auto addr = LocalAddress(listener->get());
  ASSERT_TRUE(addr.ok());

  ScopedFd server_conn;
  SocketAddress peer;
  ASSERT_TRUE(loop->Add(listener->get(), kIoRead, [&](uint32_t) {
    for (;;) {
      auto c = AcceptNonBlocking(listener->get(), &peer);
      ASSERT_TRUE(c.ok()) << c.error().message;
      if (!c->valid()) break;
      server_conn = std::move(*c);
      ASSERT_TRUE(SetNoDelay(server_conn.get()));
      ASSERT_EQ(write(server_conn.get(), "hi", 2), 2);
    }
  }));

  auto client = ConnectTcpNonBlocking(*addr);
  ASSERT_TRUE(client.ok()) << client.error().message;
  bool connected = false;
  std::string received;
  ASSERT_TRUE(loop->Add(client->get(), kIoWrite, [&](uint32_t events) {
    if (!connected) {
      ASSERT_TRUE(events & kIoWrite);
      ASSERT_EQ(SocketError(client->get()), 0);
      connected = true;
      ASSERT_TRUE(loop->Modify(client->get(), kIoRead));
      return;
    }
    char buf[16];
    ssize_t n = read(client->get(), buf, sizeof(buf));
    if (n > 0) received.append(buf, static_cast<size_t>(n));
  }));

  EXPECT_TRUE(RunUntil(*loop, [&] { return received == "hi"; }));
  EXPECT_TRUE(connected);
  EXPECT_TRUE(server_conn.valid());
  EXPECT_EQ(peer.family(), AF_INET);
  auto client_local = LocalAddress(client->get());
  ASSERT_TRUE(client_local.ok());
  EXPECT_EQ(peer.port(), client_local->port());
  loop->Remove(client->get());
  loop->Remove(listener->get());
  EXPECT_EQ(loop->fd_count(), 0u);
}

TEST(SocketTest, ConnectToClosedPortIsRefused) {
  uint16_t port = 0;
  {
    auto listener = ListenTcp(Loopback(0), 1, false);
    ASSERT_TRUE(listener.ok());
    port = LocalAddress(listener->get())->port();
  }  // closed: nothing listens on port any more
  int err = 0;
  auto client = ConnectTcpNonBlocking(Loopback(port), &err);
  if (!client.ok()) {  // refused synchronously
    EXPECT_EQ(err, ECONNREFUSED);
    EXPECT_NE(client.error().message.find(Loopback(port).ToString()), std::string::npos);
    return;
  }
  EXPECT_EQ(err, 0);
  auto loop = NewLoop();
  int so_error = -1;
  ASSERT_TRUE(
      loop->Add(client->get(), kIoWrite, [&](uint32_t) { so_error = SocketError(client->get()); }));
  EXPECT_TRUE(RunUntil(*loop, [&] { return so_error != -1; }));
  EXPECT_EQ(so_error, ECONNREFUSED);
}

// --- timers ---

TEST(EventLoopTimerTest, FireInDeadlineOrderFifoOnTies) {
  auto loop = NewLoop();
  std::vector<std::string> order;
  Nanos base = MonotonicNow();
  loop->AddTimer(base + 3 * kMs, [&] { order.push_back("c"); });
  loop->AddTimer(base + 1 * kMs, [&] { order.push_back("a1"); });
  loop->AddTimer(base + 2 * kMs, [&] { order.push_back("b"); });
  loop->AddTimer(base + 1 * kMs, [&] { order.push_back("a2"); });
  loop->AddTimer(base + 1 * kMs, [&] { order.push_back("a3"); });
  EXPECT_EQ(loop->timer_count(), 5u);
  EXPECT_TRUE(RunUntil(*loop, [&] { return order.size() == 5; }));
  EXPECT_EQ(order, (std::vector<std::string>{"a1", "a2", "a3", "b", "c"}));
  EXPECT_EQ(loop->timer_count(), 0u);
}

TEST(EventLoopTimerTest, SameDeadlineInThePastKeepsInsertionOrder) {
  auto loop = NewLoop();
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) loop->AddTimer(5, [&order, i] { order.push_back(i); });
  ASSERT_TRUE(loop->RunOnce(0));
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
}

TEST(EventLoopTimerTest, CancelledTimerDoesNotFire) {
  auto loop = NewLoop();
  Nanos base = MonotonicNow();
  bool fired_a = false;
  bool fired_b = false;
  TimerId a = loop->AddTimer(base + 1 * kMs, [&] { fired_a = true; });
  TimerId b = loop->AddTimer(base + 2 * kMs, [&] { fired_b = true; });
  EXPECT_NE(a, b);
  EXPECT_TRUE(loop->CancelTimer(a));
  EXPECT_FALSE(loop->CancelTimer(a));
  EXPECT_EQ(loop->timer_count(), 1u);
  EXPECT_TRUE(RunUntil(*loop, [&] { return fired_b; }));
  EXPECT_FALSE(fired_a);
  EXPECT_FALSE(loop->CancelTimer(b));  // already fired
}

TEST(EventLoopTimerTest, ManyCancellationsKeepTheRestCorrect) {
  auto loop = NewLoop();
  std::vector<TimerId> ids;
  std::vector<int> fired;
  for (int i = 0; i < 5000; ++i) {
    ids.push_back(loop->AddTimer(1000 + i, [&fired, i] { fired.push_back(i); }));
  }
  for (int i = 0; i < 5000; ++i) {
    if (i % 10 != 0) {
      EXPECT_TRUE(loop->CancelTimer(ids[static_cast<size_t>(i)]));
    }
  }
  EXPECT_EQ(loop->timer_count(), 500u);
  ASSERT_TRUE(loop->RunOnce(0));
  ASSERT_EQ(fired.size(), 500u);
  for (size_t k = 0; k < fired.size(); ++k) EXPECT_EQ(fired[k], static_cast<int>(k * 10));
}

TEST(EventLoopTimerTest, TimerNeverFiresBeforeItsDeadline) {
  auto loop = NewLoop();
  Nanos deadline = MonotonicNow() + 2 * kMs;
  Nanos fired_at = 0;
  loop->AddTimer(deadline, [&] { fired_at = MonotonicNow(); });
  // No max wait: only the timerfd can wake the loop.
  while (fired_at == 0) ASSERT_TRUE(loop->RunOnce(-1));
  EXPECT_GE(fired_at, deadline);
}

TEST(EventLoopTimerTest, TimerAddedByCallbackAtPastDeadlineWaitsForNextRound) {
  auto loop = NewLoop();
  int first = 0;
  int second = 0;
  loop->AddTimer(1, [&] {
    ++first;
    loop->AddTimer(1, [&] { ++second; });
  });
  ASSERT_TRUE(loop->RunOnce(0));
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 0);
  ASSERT_TRUE(loop->RunOnce(0));
  EXPECT_EQ(second, 1);
}

TEST(EventLoopTimerTest, CallbackCanCancelALaterTimer) {
  auto loop = NewLoop();
  bool later_fired = false;
  TimerId later = loop->AddTimer(20, [&] { later_fired = true; });
  loop->AddTimer(10, [&] { EXPECT_TRUE(loop->CancelTimer(later)); });
  ASSERT_TRUE(loop->RunOnce(0));
  EXPECT_FALSE(later_fired);
  EXPECT_EQ(loop->timer_count(), 0u);
}

// --- stop ---

TEST(EventLoopStopTest, StopFromAnotherThreadEndsRun) {
  auto loop = NewLoop();
  Status result = MakeError(ErrorKind::kSystem, "Run did not return");
  bool returned = false;
  std::thread runner([&] {
    result = loop->Run();  // no fds, no timers: only the wake-up can end this
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  loop->Stop();
  runner.join();
  EXPECT_TRUE(returned);
  EXPECT_TRUE(result.ok());
}

TEST(EventLoopStopTest, StopBeforeRunReturnsAtOnceAndRunCanResume) {
  auto loop = NewLoop();
  loop->Stop();
  ASSERT_TRUE(loop->Run());
  // The stop was consumed: a second Run runs until stopped again, here by a timer.
  bool fired = false;
  loop->AddTimer(MonotonicNow() + kMs, [&] {
    fired = true;
    loop->Stop();
  });
  ASSERT_TRUE(loop->Run());
  EXPECT_TRUE(fired);
}

// --- busy polling ---

// A busy-polling loop still fires timers no earlier than their deadlines and in order, wakes
// for a ready fd and for Stop(), and never needs its timerfd: it must not sleep at all.
TEST(EventLoopBusyPollTest, TimersFdsAndStopWorkWithoutSleeping) {
  auto loop = NewLoop();
  loop->SetBusyPoll(true);
  EXPECT_TRUE(loop->busy_poll());
  std::vector<std::pair<int, Nanos>> fired;
  const Nanos base = MonotonicNow();
  loop->AddTimer(base + 2 * kMs, [&] { fired.emplace_back(2, MonotonicNow()); });
  loop->AddTimer(base + 1 * kMs, [&] { fired.emplace_back(1, MonotonicNow()); });
  while (fired.size() < 2) ASSERT_TRUE(loop->RunOnce(-1));
  EXPECT_EQ(fired[0].first, 1);
  EXPECT_GE(fired[0].second, base + 1 * kMs);
  EXPECT_EQ(fired[1].first, 2);
  EXPECT_GE(fired[1].second, base + 2 * kMs);

  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
  ScopedFd rd(fds[0]), wr(fds[1]);
  bool readable = false;
  ASSERT_TRUE(loop->Add(rd.get(), kIoRead, [&](uint32_t ev) { readable = (ev & kIoRead) != 0; }));
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(write(wr.get(), "x", 1), 1);
  });
  while (!readable) ASSERT_TRUE(loop->RunOnce(-1));  // no timer: only the fd can end the poll
  writer.join();
  loop->Remove(rd.get());

  // max_wait bounds a poll with nothing to do, and the thread never blocked meanwhile.
  auto voluntary_switches = [] {
    rusage ru{};
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw;
  };
  const long switches = voluntary_switches();
  const Nanos before = MonotonicNow();
  ASSERT_TRUE(loop->RunOnce(3 * kMs));
  EXPECT_GE(MonotonicNow() - before, 3 * kMs);
  EXPECT_EQ(voluntary_switches(), switches);

  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    loop->Stop();
  });
  ASSERT_TRUE(loop->Run());
  stopper.join();
}

// --- fd registration while dispatching ---

TEST(EventLoopFdTest, RemovingAnotherFdInTheSameBatchSkipsItsHandler) {
  auto loop = NewLoop();
  Pipe p1 = MakePipe();
  Pipe p2 = MakePipe();
  ASSERT_EQ(write(p1.write.get(), "x", 1), 1);
  ASSERT_EQ(write(p2.write.get(), "x", 1), 1);
  int calls = 0;
  ASSERT_TRUE(loop->Add(p1.read.get(), kIoRead, [&](uint32_t) {
    ++calls;
    loop->Remove(p2.read.get());
  }));
  ASSERT_TRUE(loop->Add(p2.read.get(), kIoRead, [&](uint32_t) {
    ++calls;
    loop->Remove(p1.read.get());
  }));
  ASSERT_TRUE(loop->RunOnce(0));  // both are readable: one epoll batch holds both
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(loop->fd_count(), 1u);
}

TEST(EventLoopFdTest, StaleEventDoesNotReachNewHandlerOfReusedFdNumber) {
  auto loop = NewLoop();
  Pipe p1 = MakePipe();
  Pipe p2 = MakePipe();
  ASSERT_EQ(write(p1.write.get(), "x", 1), 1);
  ASSERT_EQ(write(p2.write.get(), "x", 1), 1);
  int old_calls = 0;
  int new_calls = 0;
  Pipe replacement;
  // Whichever runs first closes the other and puts a fresh pipe (same fd number, nothing to
  // read) in its place; the other's pending event must reach neither handler.
  auto replace_other = [&](Pipe& other) {
    int old_fd = other.read.get();
    loop->Remove(old_fd);
    other.read.reset();
    replacement = MakePipe();
    ASSERT_EQ(replacement.read.get(), old_fd);
    ASSERT_TRUE(loop->Add(replacement.read.get(), kIoRead, [&](uint32_t) { ++new_calls; }));
  };
  ASSERT_TRUE(loop->Add(p1.read.get(), kIoRead, [&](uint32_t) {
    if (++old_calls == 1) replace_other(p2);
  }));
  ASSERT_TRUE(loop->Add(p2.read.get(), kIoRead, [&](uint32_t) {
    if (++old_calls == 1) replace_other(p1);
  }));
  ASSERT_TRUE(loop->RunOnce(0));
  EXPECT_EQ(old_calls, 1);
  EXPECT_EQ(new_calls, 0);
  // The new registration works normally once its pipe has data.
  ASSERT_EQ(write(replacement.write.get(), "y", 1), 1);
  EXPECT_TRUE(RunUntil(*loop, [&] { return new_calls > 0; }));
}

TEST(EventLoopFdTest, HandlerCanRemoveItselfAndIsNotCalledAgain) {
  auto loop = NewLoop();
  Pipe p = MakePipe();
  ASSERT_EQ(write(p.write.get(), "x", 1), 1);
  int calls = 0;
  std::string captured = "state owned by the handler";
  ASSERT_TRUE(loop->Add(p.read.get(), kIoRead, [&, captured](uint32_t) {
    ++calls;
    loop->Remove(p.read.get());
    EXPECT_EQ(captured, "state owned by the handler");  // still alive after removal
  }));
  ASSERT_TRUE(loop->RunOnce(0));
  ASSERT_TRUE(loop->RunOnce(0));  // still readable, but no longer watched
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(loop->fd_count(), 0u);
}

TEST(EventLoopFdTest, HandlerKeepsWorkingWhenOthersAreAddedDuringDispatch) {
  auto loop = NewLoop();
  Pipe first = MakePipe();
  std::vector<Pipe> added;
  int first_calls = 0;
  int added_calls = 0;
  ASSERT_EQ(write(first.write.get(), "x", 1), 1);
  ASSERT_TRUE(loop->Add(first.read.get(), kIoRead, [&](uint32_t) {
    ++first_calls;
    for (int i = 0; i < 50; ++i) {  // grows the loop's fd table while this handler runs
      added.push_back(MakePipe());
      ASSERT_EQ(write(added.back().write.get(), "x", 1), 1);
      ASSERT_TRUE(loop->Add(added.back().read.get(), kIoRead, [&](uint32_t) { ++added_calls; }));
    }
  }));
  ASSERT_TRUE(loop->RunOnce(0));
  EXPECT_EQ(first_calls, 1);
  char c;
  ASSERT_EQ(read(first.read.get(), &c, 1), 1);
  ASSERT_EQ(write(first.write.get(), "x", 1), 1);
  EXPECT_TRUE(RunUntil(*loop, [&] { return first_calls == 2 && added_calls >= 50; }));
  for (Pipe& p : added) loop->Remove(p.read.get());
  loop->Remove(first.read.get());
}

TEST(EventLoopFdTest, ModifyChangesInterestAndDuplicateAddFails) {
  auto loop = NewLoop();
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
  ScopedFd a(sv[0]);
  ScopedFd b(sv[1]);
  uint32_t seen = 0;
  int calls = 0;
  ASSERT_TRUE(loop->Add(a.get(), 0, [&](uint32_t events) {
    seen = events;
    ++calls;
  }));
  EXPECT_FALSE(loop->Add(a.get(), kIoRead, [](uint32_t) {}).ok());
  ASSERT_TRUE(loop->RunOnce(0));
  EXPECT_EQ(calls, 0);  // writable, but nobody asked
  ASSERT_TRUE(loop->Modify(a.get(), kIoWrite));
  ASSERT_TRUE(loop->RunOnce(0));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, kIoWrite);
  EXPECT_FALSE(loop->Modify(b.get(), kIoRead).ok());  // never added
  loop->Remove(a.get());
}

TEST(EventLoopFdTest, PeerCloseIsReportedAsReadable) {
  auto loop = NewLoop();
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
  ScopedFd a(sv[0]);
  ScopedFd b(sv[1]);
  uint32_t seen = 0;
  ASSERT_TRUE(loop->Add(a.get(), kIoRead, [&](uint32_t events) { seen = events; }));
  b.reset();
  ASSERT_TRUE(loop->RunOnce(0));
  EXPECT_TRUE(seen & kIoRead);
  char c;
  EXPECT_EQ(read(a.get(), &c, 1), 0);  // EOF
  loop->Remove(a.get());
}

}  // namespace
}  // namespace pqc
