// tun_device — one end of the emulated link: a TUN device (IFF_TUN|IFF_NO_PI, raw IP packets)
// made inside a namespace and given an address there. The kernel's TCP stack on each side
// stays real; the mover between the two fds is the wire. The device vanishes when its fd
// closes, so the ScopedFd is the device's whole lifetime.
#pragma once

#include <string>

#include "core/error.h"
#include "core/fd.h"

namespace pqc::link {

struct TunConfig {
  std::string name = "pqc0";  // interface name inside the namespace
  std::string address;        // this side, e.g. "198.18.0.1"
  int prefix = 15;            // 198.18.0.0/15 routes through the device
  int mtu = 1500;
};

// TunDevice: the device's fd (the mover writes arriving packets into it) and, where the
// kernel allows, the egress tap the mover reads departing packets from (see egress_tap.h).
struct TunDevice {
  ScopedFd tun;
  ScopedFd tap;             // invalid: read departing packets from `tun`
  std::string tap_problem;  // why there is no tap (empty when there is one)
};

// CreateTunInCurrentNetns: must run on a thread already inside the target namespace
// (ScopedNetns). Brings loopback up, creates and configures the device (address, MTU, no
// offloads, up; IPv6 off and TCP metrics not saved between connections, best effort) and
// its egress tap, before the device is up so that no packet is missed.
Result<TunDevice> CreateTunInCurrentNetns(const TunConfig& config);

}  // namespace pqc::link
