// link — the emulated WAN as one RAII object: network namespaces made by the tool (the server
// side and one per client site), a TUN device per site on each side, and the mover between
// them. Several sites give one server clients at several distances at once (the original
// study's three regions in one trial), each site's wire with its own profile. The scenario
// runner and `pqc-bench link` both hold one for the length of a run; destroying it (also on
// an error path) removes the devices and the namespaces, and Create first removes what a
// killed earlier run left behind.
//
// Addresses (RFC 2544 benchmarking range): the server 198.18.0.1, a one-site link's client
// 198.18.0.2, both /15 on device "pqc0". With several sites, site k's clients are 198.18.k.2
// (/15 on their "pqc0") and the server's device for site k is "pqc<k>" with 198.18.k.1/24:
// the server keeps one address for every site (the kernel accepts a packet for a local address
// on any device) and answers each site through that site's device. MTU 1500, no offloads,
// loopback up in each namespace.
//
// Use: child processes enter a side with ChildProcess (SpawnOptions::netns_path); a thread in
// this process enters with ScopedNetns::Enter(path) (threads it then starts inherit it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "link/link_profile.h"
#include "link/mover.h"
#include "link/netns.h"
#include "net/address.h"

namespace pqc::link {

inline constexpr const char* kServerIp = "198.18.0.1";
inline constexpr const char* kClientIp = "198.18.0.2";
// ServerAddress: kServerIp at `port`, typed (where a server listens or a client connects).
inline SocketAddress ServerAddress(uint16_t port = 0) {
  return Ipv4Address({198, 18, 0, 1}, port);
}

class Link {
 public:
  // Create: removes stale pqc-bench namespaces, then builds everything or nothing. Needs root
  // (CAP_SYS_ADMIN + CAP_NET_ADMIN); the error says which step was refused.
  // mover_threads: 1 (default, most faithful delays) or 2 (more packets/s); see Mover::Start.
  static Result<std::unique_ptr<Link>> Create(const LinkProfile& profile, int mover_threads = 1);
  // Create: one client namespace per site (1 to kMaxSites), all attached to one server side.
  static Result<std::unique_ptr<Link>> Create(const std::vector<LinkSite>& sites,
                                              int mover_threads = 1);
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  // ~Link: stops the mover (closing the TUN fds removes the devices), then unmounts and
  // deletes both namespaces.
  ~Link();

  // profile: site 0's (a one-site link's only one).
  const LinkProfile& profile() const { return sites_.front().profile; }
  const std::vector<LinkSite>& sites() const { return sites_; }
  // Paths usable with open() + setns(CLONE_NEWNET), e.g. /run/netns/pqc-bench-123-0-server.
  const std::string& server_netns_path() const { return server_ns_.path(); }
  const std::string& client_netns_path(size_t site = 0) const { return client_ns_[site].path(); }
  std::string server_ip() const { return kServerIp; }
  SocketAddress server_address(uint16_t port = 0) const { return ServerAddress(port); }
  std::string client_ip(size_t site = 0) const;
  // stats: every site's wire together; site_stats: one site's.
  MoverStats stats() const { return mover_->stats(); }
  MoverStats site_stats(size_t site) const { return mover_->site_stats(site); }

 private:
  Link() = default;
  std::vector<LinkSite> sites_;
  NamedNetns server_ns_;
  std::vector<NamedNetns> client_ns_;  // one per site
  std::unique_ptr<Mover> mover_;       // destroyed first (declared last)
};

}  // namespace pqc::link
