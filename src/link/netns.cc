// netns — creation by unshare() on a short-lived thread plus a bind mount of that thread's
// namespace, so the calling threads never change namespace.
#include "link/netns.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include "core/fd.h"
#include "link/sys_error.h"

namespace pqc::link {
namespace {

// Remove: unmount (lazily: a process may still be inside) and delete the mount point.
void Remove(const std::string& path) {
  umount2(path.c_str(), MNT_DETACH);
  unlink(path.c_str());
}

}  // namespace

std::string NetnsName(const std::string& role) {
  static std::atomic<unsigned> counter{0};
  return fmt::format("{}{}-{}-{}", kNetnsPrefix, getpid(), counter.fetch_add(1), role);
}

int OwnerPid(const std::string& name) {
  const std::string prefix = kNetnsPrefix;
  if (name.compare(0, prefix.size(), prefix) != 0) return -1;
  size_t i = prefix.size();
  long pid = 0;
  size_t digits = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 10) {
    pid = pid * 10 + (name[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0 || i >= name.size() || name[i] != '-' || pid <= 0 || pid > 0x3fffffff) return -1;
  return static_cast<int>(pid);
}

Result<NamedNetns> NamedNetns::Create(const std::string& name) {
  if (mkdir(kNetnsDir, 0755) != 0 && errno != EEXIST) {
    return SysError(
        fmt::format("cannot create {} (creating network namespaces needs root, or "
                    "CAP_SYS_ADMIN)",
                    kNetnsDir));
  }
  NamedNetns ns;
  const std::string path = fmt::format("{}/{}", kNetnsDir, name);
  if (!ScopedFd(open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444)).valid()) {
    return SysError(fmt::format("cannot create the mount point {}", path));
  }
  ns.path_ = path;  // from here on the destructor removes it
  // A thread of its own unshares, so that no caller's thread changes namespace.
  std::string failure;
  std::thread maker([&] {
    if (unshare(CLONE_NEWNET) != 0) {
      failure = fmt::format("unshare(CLONE_NEWNET): {} (needs root or CAP_SYS_ADMIN)",
                            std::strerror(errno));
      return;
    }
    if (mount("/proc/thread-self/ns/net", path.c_str(), "none", MS_BIND, nullptr) != 0) {
      failure =
          fmt::format("bind mount of the new namespace on {}: {}", path, std::strerror(errno));
    }
  });
  maker.join();
  if (!failure.empty()) return MakeError(ErrorKind::kSystem, failure);
  return ns;
}

NamedNetns::NamedNetns(NamedNetns&& other) noexcept : path_(std::exchange(other.path_, {})) {}

NamedNetns& NamedNetns::operator=(NamedNetns&& other) noexcept {
  if (this != &other) {
    if (!path_.empty()) Remove(path_);
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

NamedNetns::~NamedNetns() {
  if (!path_.empty()) Remove(path_);
}

Result<ScopedNetns> ScopedNetns::Enter(const std::string& netns_path) {
  ScopedFd original(open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
  if (!original.valid()) return SysError("cannot open this thread's network namespace");
  ScopedFd target(open(netns_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!target.valid()) return SysError(fmt::format("cannot open network namespace {}", netns_path));
  if (setns(target.get(), CLONE_NEWNET) != 0) {
    return SysError(fmt::format("setns into {} (needs CAP_SYS_ADMIN)", netns_path));
  }
  return ScopedNetns(std::move(original));
}

ScopedNetns::~ScopedNetns() {
  if (original_.valid()) setns(original_.get(), CLONE_NEWNET);
}

Status CleanupStaleNamespaces() {
  std::error_code ec;
  std::filesystem::directory_iterator it(kNetnsDir, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return {};
    errno = ec.value();
    return SysError(fmt::format("cannot list {}", kNetnsDir));
  }
  std::vector<std::string> stale;
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const int pid = OwnerPid(name);
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(name);
  }
  for (const std::string& name : stale) {
    const std::string path = fmt::format("{}/{}", kNetnsDir, name);
    umount2(path.c_str(), MNT_DETACH);
    if (unlink(path.c_str()) != 0 && errno != ENOENT) {
      return SysError(fmt::format("cannot remove the stale namespace {}", path));
    }
  }
  return {};
}

}  // namespace pqc::link
