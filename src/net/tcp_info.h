// tcp_info — facts the kernel keeps per TCP connection that the load generator records.
#pragma once

#include <cstdint>

namespace pqc {

// DataSegmentsIn: TCP segments carrying data received on `fd` so far (tcpi_data_segs_in,
// Linux 4.6+); 0 if the kernel does not say. Read once per connection, when its handshake
// completes: it is the count the server's initial congestion window limits.
uint32_t DataSegmentsIn(int fd);

}  // namespace pqc
