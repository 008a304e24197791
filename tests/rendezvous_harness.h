// rendezvous_harness — shard 0 and its followers on loopback for the tests of the rendezvous
// and of the trial barriers: a free port, shard 0 waiting in a thread, a follower joining,
// one plan identity and one key; strangers' blocking connections, writes and reads.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "net/address.h"
#include "net/socket.h"
#include "scenario/rendezvous.h"
#include "scenario/rendezvous_auth.h"

namespace pqc::scenario::rendezvous_harness {

constexpr Nanos kSecond = 1'000'000'000;

const PlanIdentity kIdentity{"0.1.0-test", "aaaa", "bbbb", "cccc"};
const RendezvousKey kKey{"0123456789abcdef0123456789abcdef"};

inline SocketAddress Loopback(uint16_t port) {
  return *ParseAddress(fmt::format("127.0.0.1:{}", port));
}

// FreePort: a loopback port nothing listens on now (bound to port 0 and released).
inline uint16_t FreePort() {
  auto l = ListenTcp(Loopback(0), 1, false);
  EXPECT_TRUE(l.ok());
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(l->get(), reinterpret_cast<sockaddr*>(&ss), &len);
  return AddressFromSockaddr(reinterpret_cast<sockaddr*>(&ss), len).port();
}

// Log: a memory stream the leader writes its log to.
struct Log {
  char* data = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&data, &size);
  ~Log() {
    std::fclose(f);
    std::free(data);
  }
  std::string text() {
    std::fflush(f);
    return {data, size};
  }
};

// LeaderThread: shard 0 of `count` waiting at `port` in a thread; result() joins it.
class LeaderThread {
 public:
  LeaderThread(uint16_t port, uint32_t count, const RendezvousKey* key, Nanos wait = 20 * kSecond)
      : thread_([=, this] {
          result_ = Leader::Open(Loopback(port), {0, count}, kIdentity, key, MonotonicNow() + wait,
                                 log_.f);
        }) {}
  ~LeaderThread() {
    if (thread_.joinable()) thread_.join();
  }
  Result<Leader>& result() {
    thread_.join();
    return result_;
  }
  std::string log() { return log_.text(); }

 private:
  Log log_;
  Result<Leader> result_ = MakeError(ErrorKind::kIo, "not run");
  std::thread thread_;
};

inline Result<Follower> Join(uint16_t port, uint32_t index, uint32_t count,
                             const RendezvousKey* key, Nanos wait = 10 * kSecond) {
  return Follower::Join(Loopback(port), Loopback(0), {index, count}, kIdentity, key,
                        MonotonicNow() + wait);
}

// Blocking connect, for strangers.
inline ScopedFd Dial(uint16_t port) {
  for (int i = 0; i < 100; ++i) {
    ScopedFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const SocketAddress a = Loopback(port);
    if (::connect(fd.get(), a.sa(), a.len) == 0) return fd;
    ::usleep(20'000);
  }
  ADD_FAILURE() << "cannot connect to 127.0.0.1:" << port;
  return {};
}

inline void Write(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    s.remove_prefix(static_cast<size_t>(n));
  }
}

// ReadAll: what a peer sends until it closes or `ms` pass.
inline std::string ReadAll(int fd, int ms) {
  std::string out;
  const Nanos until = MonotonicNow() + static_cast<Nanos>(ms) * 1'000'000;
  while (MonotonicNow() < until) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace pqc::scenario::rendezvous_harness
