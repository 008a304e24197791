// egress_tap — how the mover learns *when* the kernel sent a packet into the emulated wire.
//
// Reading a TUN fd gives the packet but not its send time: the mover only stamps it when it
// wakes up, and on a virtual machine that wake-up costs 0.1–0.3 ms, which landed on top of
// every one-way delay (a 1 ms RTT measured as 1.4 ms). A packet socket (AF_PACKET) bound to
// the device gets a copy of every outgoing packet from the kernel's transmit path itself,
// stamped there (SO_TIMESTAMPNS), and hands many of them over per system call (recvmmsg).
// So the tap is the mover's input, and the TUN's own copy is discarded inside the kernel by
// a one-instruction eBPF filter on the device (TUNSETFILTEREBPF); the TUN fd is then only
// written to. Where the kernel refuses any of this, the mover falls back to reading the TUN
// fd and stamping on read, and says so in its statistics.
#pragma once

#include <cstdint>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "core/fd.h"

namespace pqc::link {

// OpenEgressTap: in the current namespace, a non-blocking packet socket on `ifname` that
// receives only packets the kernel transmits on it (a classic BPF filter on the packet type
// drops the ones the mover injects), with kernel timestamps and a large receive buffer.
Result<ScopedFd> OpenEgressTap(const std::string& ifname);

// DiscardTunCopies: installs the eBPF filter that makes the TUN device drop every packet it
// would queue for its fd reader (after the tap has copied it).
Status DiscardTunCopies(int tun_fd);

// Arrival: one packet read from the wire's input, and when it entered it.
struct Arrival {
  uint32_t len = 0;
  Nanos at = 0;  // CLOCK_MONOTONIC
};

// EgressReader: the mover's input of one direction, from a tap (kernel timestamps, batches)
// or from the TUN fd (one read per packet, stamped on read).
class EgressReader {
 public:
  static constexpr int kBatch = 64;
  static constexpr size_t kPacketBytes = 2048;  // MTU 1500 without offloads fits

  EgressReader(int tun_fd, int tap_fd) : tun_(tun_fd), tap_(tap_fd) {}
  int fd() const { return tap_ >= 0 ? tap_ : tun_; }
  bool kernel_timestamps() const { return tap_ >= 0; }

  // Read: up to kBatch packets into bufs[0..] (each kPacketBytes); returns how many. Arrival
  // times never decrease between calls and never lie in the future.
  int Read(char* const* bufs, Arrival* out);

  // TakeDrops: packets the tap's socket buffer overflowed on since the last call (lost
  // before the mover saw them; counted, never silent).
  uint64_t TakeDrops();

 private:
  int ReadTap(char* const* bufs, Arrival* out);
  int tun_, tap_;
  Nanos last_ = 0;
};

}  // namespace pqc::link
