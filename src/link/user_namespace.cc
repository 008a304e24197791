// user_namespace — unshare, id maps, a private /run/netns.
#include "link/user_namespace.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/fd.h"
#include "link/netns.h"

namespace pqc::link {
namespace {

Error Refused(const std::string& step) {
  return MakeError(
      ErrorKind::kSystem,
      fmt::format("not root, and an unprivileged user namespace could not be used ({}: {}). "
                  "The emulated link needs root, or unprivileged user namespaces "
                  "(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0) "
                  "and read-write access to /dev/net/tun",
                  step, std::strerror(errno)));
}

bool WriteFile(const char* path, const std::string& text) {
  const ScopedFd fd(open(path, O_WRONLY | O_CLOEXEC));
  return fd.valid() &&
         write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

}  // namespace

Status EnterUnprivilegedUserNamespace() {
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (access("/dev/net/tun", R_OK | W_OK) != 0) return Refused("access /dev/net/tun");
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return Refused("unshare(CLONE_NEWUSER)");
  if (!WriteFile("/proc/self/setgroups", "deny")) return Refused("write /proc/self/setgroups");
  if (!WriteFile("/proc/self/uid_map", fmt::format("0 {} 1", uid))) {
    return Refused("write /proc/self/uid_map");
  }
  if (!WriteFile("/proc/self/gid_map", fmt::format("0 {} 1", gid))) {
    return Refused("write /proc/self/gid_map");
  }
  // Private propagation: nothing mounted here leaks to the host.
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return Refused("make / private in the new mount namespace");
  }
  // A tmpfs of our own for the namespaces' mount points: on /run/netns if it exists, else on
  // /run (which only this process and its children see).
  struct stat st {};
  const bool have_dir = stat(kNetnsDir, &st) == 0 && S_ISDIR(st.st_mode);
  const char* where = have_dir ? kNetnsDir : "/run";
  if (mount("tmpfs", where, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0) {
    return Refused(fmt::format("mount a private tmpfs on {}", where));
  }
  return {};
}

}  // namespace pqc::link
