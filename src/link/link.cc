// link — assembly of namespaces, devices and mover, in an order that undoes cleanly.
#include "link/link.h"

#include <fmt/core.h>
#include <unistd.h>

#include <optional>
#include <thread>

#include "link/tun_device.h"

namespace pqc::link {
namespace {

// MakeTunInside: a short-lived thread enters the namespace and creates the device there, so
// that no caller's thread changes namespace.
Result<TunDevice> MakeTunInside(const std::string& netns_path, const std::string& device,
                                const std::string& address, int prefix) {
  std::optional<Result<TunDevice>> out;
  std::thread worker([&] {
    auto in = ScopedNetns::Enter(netns_path);
    if (!in) {
      out.emplace(in.error());
      return;
    }
    TunConfig config;
    config.name = device;
    config.address = address;
    config.prefix = prefix;
    out.emplace(CreateTunInCurrentNetns(config));
  });
  worker.join();
  if (!*out) {
    Error e = out->error();
    e.message = fmt::format("in namespace {}: {}", netns_path, e.message);
    return e;
  }
  return std::move(**out);
}

}  // namespace

Result<std::unique_ptr<Link>> Link::Create(const LinkProfile& profile, int mover_threads) {
  return Create(std::vector<LinkSite>{{"client", profile}}, mover_threads);
}

Result<std::unique_ptr<Link>> Link::Create(const std::vector<LinkSite>& sites, int mover_threads) {
  if (sites.empty() || sites.size() > kMaxSites) {
    return MakeError(ErrorKind::kUsage, fmt::format("an emulated link has 1 to {} client sites, "
                                                    "not {}",
                                                    kMaxSites, sites.size()));
  }
  if (geteuid() != 0 && access("/dev/net/tun", R_OK | W_OK) != 0) {
    return MakeError(ErrorKind::kSystem,
                     "the emulated link needs root (network namespaces need CAP_SYS_ADMIN, TUN "
                     "devices CAP_NET_ADMIN and read-write access to /dev/net/tun); run as root");
  }
  if (Status s = CleanupStaleNamespaces(); !s) return s.error();
  std::unique_ptr<Link> link(new Link());
  link->sites_ = sites;
  auto server_ns = NamedNetns::Create(NetnsName("server"));
  if (!server_ns) return server_ns.error();
  link->server_ns_ = std::move(*server_ns);
  const bool one = sites.size() == 1;
  std::vector<MoverSite> wires;
  for (size_t k = 0; k < sites.size(); ++k) {
    auto client_ns = NamedNetns::Create(NetnsName(one ? "client" : fmt::format("site{}", k)));
    if (!client_ns) return client_ns.error();
    link->client_ns_.push_back(std::move(*client_ns));
    // A one-site link keeps the addresses it always had (both ends /15 on pqc0).
    auto server_tun = MakeTunInside(link->server_ns_.path(), fmt::format("pqc{}", k),
                                    one ? kServerIp : fmt::format("198.18.{}.1", k), one ? 15 : 24);
    if (!server_tun) return server_tun.error();
    auto client_tun = MakeTunInside(link->client_ns_.back().path(), "pqc0", link->client_ip(k), 15);
    if (!client_tun) return client_tun.error();
    wires.push_back({sites[k].profile, std::move(*server_tun), std::move(*client_tun)});
  }
  auto mover = Mover::Start(std::move(wires), mover_threads);
  if (!mover) return mover.error();
  link->mover_ = std::move(*mover);
  return link;
}

std::string Link::client_ip(size_t site) const {
  return site == 0 ? kClientIp : fmt::format("198.18.{}.2", site);
}

Link::~Link() {
  mover_.reset();  // before the namespaces go: the devices vanish with their fds
}

}  // namespace pqc::link
