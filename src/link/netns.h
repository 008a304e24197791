// netns — named network namespaces the tool makes for itself, and moving threads and child
// processes into them. A namespace outlives its process when bind-mounted (that is what gives
// it a path others can open), so every one carries its owner's pid in its name and the next
// run removes those whose owner is gone: a crash never leaves the machine changed for long.
//
// Names: /run/netns/pqc-bench-<pid>-<n>-<role> (the directory `ip netns` uses, so that
// `ip netns list` and `ip netns exec` see them).
#pragma once

#include <string>

#include "core/error.h"
#include "core/fd.h"

namespace pqc::link {

// kNetnsDir: where named namespaces are bind-mounted (iproute2's convention).
inline constexpr const char* kNetnsDir = "/run/netns";
// kNetnsPrefix: every namespace pqc-bench makes starts with this.
inline constexpr const char* kNetnsPrefix = "pqc-bench-";

// NamedNetns: a fresh network namespace bind-mounted at kNetnsDir/<name>; the destructor
// unmounts and removes it (processes still inside keep it alive, nameless, until they exit).
class NamedNetns {
 public:
  static Result<NamedNetns> Create(const std::string& name);
  NamedNetns() = default;
  NamedNetns(NamedNetns&& other) noexcept;
  NamedNetns& operator=(NamedNetns&& other) noexcept;
  NamedNetns(const NamedNetns&) = delete;
  NamedNetns& operator=(const NamedNetns&) = delete;
  ~NamedNetns();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// ScopedNetns: the calling THREAD enters a namespace (setns is per-thread for CLONE_NEWNET);
// threads it creates afterwards inherit it; the destructor returns the thread to the namespace
// it was in. Not to be moved to, or destroyed on, another thread.
class ScopedNetns {
 public:
  static Result<ScopedNetns> Enter(const std::string& netns_path);
  ScopedNetns(ScopedNetns&& other) noexcept = default;
  ScopedNetns& operator=(ScopedNetns&&) = delete;
  ScopedNetns(const ScopedNetns&) = delete;
  ScopedNetns& operator=(const ScopedNetns&) = delete;
  ~ScopedNetns();

 private:
  explicit ScopedNetns(ScopedFd original) : original_(std::move(original)) {}
  ScopedFd original_;
};

// CleanupStaleNamespaces: removes every kNetnsDir/pqc-bench-<pid>-… whose pid no longer runs.
// A missing kNetnsDir is not an error.
Status CleanupStaleNamespaces();

// NetnsName: "pqc-bench-<pid>-<n>-<role>" for this process; n counts up per call.
std::string NetnsName(const std::string& role);

// OwnerPid: the pid inside a pqc-bench namespace name, or -1 if the name is not one of ours.
int OwnerPid(const std::string& name);

}  // namespace pqc::link
