#include "target/readiness.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/fd.h"
#include "net/socket.h"

namespace pqc::target {

Status CheckReadable(const std::string& what, const std::string& path) {
  if (path.empty()) return MakeError(ErrorKind::kConfig, fmt::format("{}: no file given", what));
  if (access(path.c_str(), R_OK) != 0) {
    return MakeError(ErrorKind::kConfig, fmt::format("{} {}: {}", what, path, strerror(errno)));
  }
  return {};
}

Status InNetns(const std::string& netns_path, const std::function<Status()>& fn) {
  if (netns_path.empty()) return fn();
  Status result;
  std::thread t([&] {
    ScopedFd ns(open(netns_path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!ns.valid() || setns(ns.get(), CLONE_NEWNET) != 0) {
      result = MakeError(ErrorKind::kSystem, fmt::format("cannot enter network namespace {}: {}",
                                                         netns_path, strerror(errno)));
      return;
    }
    result = fn();
  });
  t.join();
  return result;
}

Result<uint16_t> PickFreePort(const SocketAddress& host, const std::string& netns_path) {
  uint16_t port = 0;
  Status s = InNetns(netns_path, [&]() -> Status {
    auto fd = ListenTcp(host.WithPort(0), 1, false);
    if (!fd) return fd.error();
    auto local = LocalAddress(fd->get());
    if (!local) return local.error();
    port = local->port();
    return {};
  });
  if (!s) return s.error();
  return port;
}

Status WaitUntilAccepting(const SocketAddress& addr, const std::string& netns_path, Nanos deadline,
                          const std::function<Status()>& gave_up) {
  return InNetns(netns_path, [&]() -> Status {
    // Bounded by the deadline: one attempt per 10 ms at most.
    for (;;) {
      if (Status s = gave_up(); !s) return s;
      int err = 0;
      auto fd = ConnectTcpNonBlocking(addr, &err);
      if (fd) {
        pollfd p{fd->get(), POLLOUT, 0};
        if (poll(&p, 1, 100) == 1 && SocketError(fd->get()) == 0) return {};
      }
      if (MonotonicNow() >= deadline) {
        return MakeError(ErrorKind::kSystem,
                         fmt::format("{} did not accept connections in time", addr.ToString()));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
}

std::string ReadTail(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

TargetStats StatsOfExit(const ChildExit& e, std::string log_path, std::string_view server) {
  TargetStats st;
  st.cpu_user_s = e.cpu_user_s;
  st.cpu_sys_s = e.cpu_sys_s;
  st.wall_s = e.wall_s;
  st.exit = e.Describe();
  if (e.unasked) {
    std::string tail = ReadTail(log_path, 1000);
    while (!tail.empty() && tail.back() == '\n') tail.pop_back();
    st.died =
        fmt::format("{} ended on its own after {:.1f} s ({}); the last lines of {}:\n{}", server,
                    e.wall_s, e.Describe(), log_path, tail.empty() ? "(empty)" : tail);
  }
  st.log_path = std::move(log_path);
  return st;
}

}  // namespace pqc::target
