// egress_tap — packet socket, filters and batched timestamped reads.
#include "link/egress_tap.h"

#include <arpa/inet.h>
#include <fmt/core.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "link/sys_error.h"

namespace pqc::link {
namespace {

// Enough queued packets for a 1 Gbit/s burst of several milliseconds; SO_RCVBUFFORCE (root)
// passes the rmem_max ceiling.
constexpr int kTapBufferBytes = 64 << 20;

Status AcceptOnlyOutgoing(int fd) {
  // A = packet type (ancillary field); keep PACKET_OUTGOING whole, drop everything else.
  sock_filter code[] = {
      {BPF_LD | BPF_W | BPF_ABS, 0, 0, static_cast<uint32_t>(SKF_AD_OFF + SKF_AD_PKTTYPE)},
      {BPF_JMP | BPF_JEQ | BPF_K, 0, 1, PACKET_OUTGOING},
      {BPF_RET | BPF_K, 0, 0, 0x40000},
      {BPF_RET | BPF_K, 0, 0, 0},
  };
  sock_fprog prog{static_cast<unsigned short>(std::size(code)), code};
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) != 0) {
    return SysError("tap: SO_ATTACH_FILTER");
  }
  return {};
}

Nanos ToNanos(const timespec& ts) {
  return static_cast<Nanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

Result<ScopedFd> OpenEgressTap(const std::string& ifname) {
  // Protocol 0 until bound: no packet arrives before the filter is in place.
  ScopedFd fd(socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return SysError("tap: socket(AF_PACKET)");
  if (Status s = AcceptOnlyOutgoing(fd.get()); !s) return s.error();
  const int on = 1;
  if (setsockopt(fd.get(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) {
    return SysError("tap: SO_TIMESTAMPNS");
  }
  const int bytes = kTapBufferBytes;
  if (setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0 &&
      setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) != 0) {
    return SysError("tap: SO_RCVBUF");
  }
  const unsigned index = if_nametoindex(ifname.c_str());
  if (index == 0) return SysError("tap: no interface " + ifname);
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(ETH_P_ALL);
  addr.sll_ifindex = static_cast<int>(index);
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return SysError("tap: bind to " + ifname);
  }
  return fd;
}

Status DiscardTunCopies(int tun_fd) {
  // r0 = 0; exit — a socket filter that keeps 0 bytes, i.e. drops the packet.
  bpf_insn insns[2]{};
  insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
  insns[0].dst_reg = BPF_REG_0;
  insns[0].imm = 0;
  insns[1].code = BPF_JMP | BPF_EXIT;
  static const char kLicense[] = "GPL";
  bpf_attr attr{};
  attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  attr.insns = reinterpret_cast<uint64_t>(insns);
  attr.insn_cnt = 2;
  attr.license = reinterpret_cast<uint64_t>(kLicense);
  ScopedFd prog(static_cast<int>(syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof attr)));
  if (!prog.valid()) return SysError("bpf(BPF_PROG_LOAD) of the TUN drop filter");
  int fd = prog.get();
  // The device keeps its own reference to the program; ours may close.
  if (ioctl(tun_fd, TUNSETFILTEREBPF, &fd) != 0) return SysError("TUNSETFILTEREBPF");
  return {};
}

int EgressReader::Read(char* const* bufs, Arrival* out) {
  if (tap_ >= 0) return ReadTap(bufs, out);
  int got = 0;
  for (; got < kBatch; ++got) {
    const ssize_t n = read(tun_, bufs[got], kPacketBytes);
    if (n <= 0) break;
    last_ = std::max(last_, MonotonicNow());
    out[got] = Arrival{static_cast<uint32_t>(n), last_};
  }
  return got;
}

int EgressReader::ReadTap(char* const* bufs, Arrival* out) {
  mmsghdr msgs[kBatch]{};
  iovec iovs[kBatch];
  alignas(cmsghdr) char control[kBatch][CMSG_SPACE(sizeof(timespec))];
  for (int i = 0; i < kBatch; ++i) {
    iovs[i] = iovec{bufs[i], kPacketBytes};
    msgs[i].msg_hdr.msg_iov = &iovs[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
    msgs[i].msg_hdr.msg_control = control[i];
    msgs[i].msg_hdr.msg_controllen = sizeof control[i];
  }
  const int n = recvmmsg(tap_, msgs, kBatch, MSG_DONTWAIT, nullptr);
  if (n <= 0) return 0;
  // The kernel stamps with CLOCK_REALTIME; one offset per batch maps to CLOCK_MONOTONIC
  // (a slew between two batches is far below a microsecond).
  timespec real{};
  clock_gettime(CLOCK_REALTIME, &real);
  const Nanos now = MonotonicNow();
  const Nanos offset = ToNanos(real) - now;
  for (int i = 0; i < n; ++i) {
    Nanos at = now;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c != nullptr;
         c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
        timespec ts{};
        std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
        at = ToNanos(ts) - offset;
      }
    }
    last_ = std::clamp(at, last_, std::max(last_, now));
    out[i] = Arrival{msgs[i].msg_len, last_};
  }
  return n;
}

uint64_t EgressReader::TakeDrops() {
  if (tap_ < 0) return 0;
  tpacket_stats st{};
  socklen_t len = sizeof st;
  // Reading the statistics resets them, so each call returns the drops since the last.
  if (getsockopt(tap_, SOL_PACKET, PACKET_STATISTICS, &st, &len) != 0) return 0;
  return st.tp_drops;
}

}  // namespace pqc::link
