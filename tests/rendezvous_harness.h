// rendezvous_harness — shard 0 and its followers on loopback for the tests of the rendezvous
// and of the trial barriers: a free port, shard 0 waiting in a thread, a follower joining,
// one plan identity and one key.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>
#include <string>
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

}  // namespace pqc::scenario::rendezvous_harness
