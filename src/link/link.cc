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
Result<TunDevice> MakeTunInside(const std::string& netns_path, const char* address) {
  std::optional<Result<TunDevice>> out;
  std::thread worker([&] {
    auto in = ScopedNetns::Enter(netns_path);
    if (!in) {
      out.emplace(in.error());
      return;
    }
    TunConfig config;
    config.address = address;
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
  if (geteuid() != 0 && access("/dev/net/tun", R_OK | W_OK) != 0) {
    return MakeError(ErrorKind::kSystem,
                     "the emulated link needs root (network namespaces need CAP_SYS_ADMIN, TUN "
                     "devices CAP_NET_ADMIN and read-write access to /dev/net/tun); run as root");
  }
  if (Status s = CleanupStaleNamespaces(); !s) return s.error();
  std::unique_ptr<Link> link(new Link());
  link->profile_ = profile;
  auto server_ns = NamedNetns::Create(NetnsName("server"));
  if (!server_ns) return server_ns.error();
  link->server_ns_ = std::move(*server_ns);
  auto client_ns = NamedNetns::Create(NetnsName("client"));
  if (!client_ns) return client_ns.error();
  link->client_ns_ = std::move(*client_ns);

  auto server_tun = MakeTunInside(link->server_ns_.path(), kServerIp);
  if (!server_tun) return server_tun.error();
  auto client_tun = MakeTunInside(link->client_ns_.path(), kClientIp);
  if (!client_tun) return client_tun.error();
  auto mover = Mover::Start(profile, std::move(*server_tun), std::move(*client_tun), mover_threads);
  if (!mover) return mover.error();
  link->mover_ = std::move(*mover);
  return link;
}

Link::~Link() {
  mover_.reset();  // before the namespaces go: the devices vanish with their fds
}

}  // namespace pqc::link
