// tun_device — TUN creation and interface configuration with ioctls (no iproute2 needed).
#include "link/tun_device.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "link/egress_tap.h"
#include "link/sys_error.h"

namespace pqc::link {
namespace {

ifreq NamedRequest(const std::string& name) {
  ifreq req{};
  std::strncpy(req.ifr_name, name.c_str(), IFNAMSIZ - 1);
  return req;
}

Status SetUp(int sock, const std::string& name) {
  ifreq req = NamedRequest(name);
  if (ioctl(sock, SIOCGIFFLAGS, &req) != 0) return SysError(fmt::format("SIOCGIFFLAGS {}", name));
  req.ifr_flags = static_cast<short>(req.ifr_flags | IFF_UP);
  if (ioctl(sock, SIOCSIFFLAGS, &req) != 0) return SysError(fmt::format("bring {} up", name));
  return {};
}

Status SetIpv4(int sock, const std::string& name, unsigned long request, in_addr_t addr,
               const char* what) {
  ifreq req = NamedRequest(name);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = addr;
  std::memcpy(&req.ifr_addr, &sin, sizeof sin);
  if (ioctl(sock, request, &req) != 0) return SysError(fmt::format("set {} of {}", what, name));
  return {};
}

// WriteSysctl: best effort; a kernel without the knob changes nothing we measure.
void WriteSysctl(const std::string& path, const char* value) {
  std::ofstream out(path);
  out << value;
}

}  // namespace

Result<TunDevice> CreateTunInCurrentNetns(const TunConfig& config) {
  ScopedFd sock(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) return SysError("socket for interface configuration");
  if (Status s = SetUp(sock.get(), "lo"); !s) return s.error();

  ScopedFd tun(open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC));
  if (!tun.valid()) {
    return SysError("cannot open /dev/net/tun (needs root or CAP_NET_ADMIN, and the tun module)");
  }
  ifreq req = NamedRequest(config.name);
  req.ifr_flags = IFF_TUN | IFF_NO_PI;
  if (ioctl(tun.get(), TUNSETIFF, &req) != 0) return SysError("TUNSETIFF " + config.name);
  // No offloads: the stack hands the device real segments of at most MTU bytes (no TSO/GSO
  // super-packets), and the device takes none from us.
  if (ioctl(tun.get(), TUNSETOFFLOAD, 0UL) != 0) return SysError("TUNSETOFFLOAD 0");
  TunDevice device;
  if (auto tap = OpenEgressTap(config.name); !tap) {
    device.tap_problem = tap.error().message;
  } else if (Status s = DiscardTunCopies(tun.get()); !s) {
    device.tap_problem = s.error().message;
  } else {
    device.tap = std::move(*tap);
  }

  in_addr addr{};
  if (inet_pton(AF_INET, config.address.c_str(), &addr) != 1) {
    return MakeError(ErrorKind::kConfig, "not an IPv4 address: " + config.address);
  }
  const in_addr_t mask = htonl(config.prefix == 0 ? 0 : ~0U << (32 - config.prefix));
  // IPv6 off before the device comes up, so no router solicitations cross the link.
  WriteSysctl(fmt::format("/proc/sys/net/ipv6/conf/{}/disable_ipv6", config.name), "1");
  // Each connection starts from the same state (no cached RTT or ssthresh from the last one).
  WriteSysctl("/proc/sys/net/ipv4/tcp_no_metrics_save", "1");
  if (Status s = SetIpv4(sock.get(), config.name, SIOCSIFADDR, addr.s_addr, "address"); !s) {
    return s.error();
  }
  if (Status s = SetIpv4(sock.get(), config.name, SIOCSIFNETMASK, mask, "netmask"); !s) {
    return s.error();
  }
  ifreq mtu = NamedRequest(config.name);
  mtu.ifr_mtu = config.mtu;
  if (ioctl(sock.get(), SIOCSIFMTU, &mtu) != 0) return SysError("set MTU of " + config.name);
  ifreq qlen = NamedRequest(config.name);
  // The device's own queue in front of the mover (default 500). It must stay > 0: with no
  // queue (noqueue) the kernel would report the TUN filter's discarding of its copy back to
  // TCP as a local drop, and TCP would cut its window on every packet.
  qlen.ifr_qlen = 1000;
  // Best effort: inside an unprivileged user namespace the kernel refuses it, and the
  // default (500, also > 0) only makes a burst hit the device's queue sooner.
  (void)ioctl(sock.get(), SIOCSIFTXQLEN, &qlen);
  if (Status s = SetUp(sock.get(), config.name); !s) return s.error();
  device.tun = std::move(tun);
  return device;
}

}  // namespace pqc::link
