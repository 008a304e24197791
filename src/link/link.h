// link — the emulated WAN as one RAII object: two network namespaces made by the tool (server
// side and client side), a TUN device in each, and the mover between them. The scenario
// runner and `pqc-bench link` both hold one for the length of a run; destroying it (also on
// an error path) removes the devices and the namespaces, and Create first removes what a
// killed earlier run left behind.
//
// Addresses: server 198.18.0.1, client 198.18.0.2 (RFC 2544 benchmarking range), both /15 on
// device "pqc0", MTU 1500, no offloads, loopback up in each namespace.
//
// Use: child processes enter a side with ChildProcess (SpawnOptions::netns_path); a thread in
// this process enters with ScopedNetns::Enter(path) (threads it then starts inherit it).
#pragma once

#include <memory>
#include <string>

#include "core/error.h"
#include "link/link_profile.h"
#include "link/mover.h"
#include "link/netns.h"

namespace pqc::link {

inline constexpr const char* kServerIp = "198.18.0.1";
inline constexpr const char* kClientIp = "198.18.0.2";

class Link {
 public:
  // Create: removes stale pqc-bench namespaces, then builds everything or nothing. Needs root
  // (CAP_SYS_ADMIN + CAP_NET_ADMIN); the error says which step was refused.
  // mover_threads: 1 (default, most faithful delays) or 2 (more packets/s); see Mover::Start.
  static Result<std::unique_ptr<Link>> Create(const LinkProfile& profile, int mover_threads = 1);
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  // ~Link: stops the mover (closing the TUN fds removes the devices), then unmounts and
  // deletes both namespaces.
  ~Link();

  const LinkProfile& profile() const { return profile_; }
  // Paths usable with open() + setns(CLONE_NEWNET), e.g. /run/netns/pqc-bench-123-0-server.
  const std::string& server_netns_path() const { return server_ns_.path(); }
  const std::string& client_netns_path() const { return client_ns_.path(); }
  std::string server_ip() const { return kServerIp; }
  std::string client_ip() const { return kClientIp; }
  MoverStats stats() const { return mover_->stats(); }

 private:
  Link() = default;
  LinkProfile profile_;
  NamedNetns server_ns_, client_ns_;
  std::unique_ptr<Mover> mover_;  // destroyed first (declared last)
};

}  // namespace pqc::link
