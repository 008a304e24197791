// tcp_info — the kernel's own struct (linux/tcp.h), not glibc's older copy, which stops
// before the segment counters.
#include "net/tcp_info.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

namespace pqc {

uint32_t DataSegmentsIn(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
  // An older kernel fills a shorter struct: the field is then absent, not zero.
  if (len < offsetof(tcp_info, tcpi_data_segs_in) + sizeof info.tcpi_data_segs_in) return 0;
  return info.tcpi_data_segs_in;
}

}  // namespace pqc
